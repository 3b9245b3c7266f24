/*
 * fuzz.h: what the libFuzzer targets in tests/fuzz/ share.
 *
 * Each fuzz-NAME.c defines LLVMFuzzerTestOneInput() (and, when it needs
 * fixed data such as a catalogue, LLVMFuzzerInitialize()).  Targets are
 * built by `make fuzzers` into build-fuzz/ and run by tests/fuzz/run.
 * FUZZ_DATA_DIR (set by the Makefile) is tests/fuzz/ in the source tree.
 */
#ifndef FLEETMARK_FUZZ_H
#define FLEETMARK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifndef FUZZ_DATA_DIR
#define FUZZ_DATA_DIR	"tests/fuzz"
#endif

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int	LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Read FUZZ_DATA_DIR/name whole into a new NUL-terminated buffer; ends
 * the process when it cannot (a target without its fixed data is broken).
 */
char	*fuzz_read_data(const char *name, size_t *len);

/* The bytes of data as a new NUL-terminated string (for APIs that take one). */
char	*fuzz_strndup(const uint8_t *data, size_t size);

#endif /* FLEETMARK_FUZZ_H */
