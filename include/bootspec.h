/*
 * bootspec.h: how a host comes up running a kernel, as written on
 * `fleetmark ab`'s -A and -B and in an inventory's `boot:` entries
 * (docs/ab.md, docs/plans-and-fleets.md): a shell command run on the
 * controller, a kexec of files on the host, or (on -A and -B only) the
 * name of the host's `boot:` entry.  Parsing only: no I/O (boot.h runs
 * them).
 *
 *	kexec:KERNEL[,initrd=FILE][,append=ARGS]
 *
 * KERNEL and FILE are absolute paths on the host, without ','; ARGS is
 * the rest of the text, commas included (a kernel command line has them:
 * console=ttyS0,115200), so append= comes last.  Each option at most
 * once.  No control characters anywhere.
 *
 * Errors: 0, or -1 with a newly allocated message (without a position:
 * the caller knows where the text came from) in *err.
 */
#ifndef FLEETMARK_BOOTSPEC_H
#define FLEETMARK_BOOTSPEC_H

#define BOOTSPEC_KEXEC_PREFIX	"kexec:"
#define BOOTSPEC_HOST_WORD	"{host}"	/* in a command: the host's name */

enum bootspec_kind {
	BOOTSPEC_COMMAND,	/* a shell command run on the controller */
	BOOTSPEC_KEXEC,		/* kexec -l KERNEL ... then kexec -e, on the host */
	BOOTSPEC_ENTRY,		/* the name of a `boot:` entry of the host */
};

struct bootspec {
	enum bootspec_kind	 kind;
	char			*text;		/* as written */
	char			*command;	/* BOOTSPEC_COMMAND */
	char			*kernel;	/* BOOTSPEC_KEXEC */
	char			*initrd;	/* BOOTSPEC_KEXEC, or NULL */
	char			*append;	/* BOOTSPEC_KEXEC, or NULL */
	char			*entry;		/* BOOTSPEC_ENTRY */
};

/*
 * Parse text into *out (release it with bootspec_release()).  With
 * names set, a text that is a name (letters, digits, '-', '_' and '.',
 * starting with a letter or digit: no command has only those and means
 * one) is a BOOTSPEC_ENTRY; without, it is a command like any other.
 * Text starting with "kexec:" is a kexec and must parse as one.
 */
int	bootspec_parse(const char *text, int names, struct bootspec *out, char **err);
void	bootspec_release(struct bootspec *b);

/* cmd with every BOOTSPEC_HOST_WORD replaced by host: a new string. */
char	*bootspec_expand(const char *cmd, const char *host);

#endif /* FLEETMARK_BOOTSPEC_H */
