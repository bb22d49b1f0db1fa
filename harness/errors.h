/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * errors.h - the harness's one error formatter, for every harness file:
 * numaring-bench, its probe, the peer adapters and the bare loop of
 * bench-fidelity. Two kinds of message:
 *
 *   - a function that fails says why in its caller's buffer (hb_err) and
 *     returns -errno, -1 or NULL; the caller decides whether to print it;
 *   - a program's own message on stderr (hb_say, hb_usage_error): one line
 *     that starts with the program's name, "numaring-bench: ...". The tests
 *     and the scripts match these lines: change their words with care.
 *
 * A message is a sentence without the final newline. Not for the probe's
 * progress lines (probe_common.c), nor for the .hgrm parser's errors
 * (hgrm.c, built alone into the fuzzer), which prefix a line number.
 */
#ifndef HB_ERRORS_H
#define HB_ERRORS_H

#include <stddef.h>

/* The name that starts hb_say's lines: "numaring-bench" unless a program's
 * main sets another (the bare loop: "bare_loop") before any thread starts. */
extern const char *hb_prog;

/*
 * hb_err - format a message into err (errlen bytes with the NUL, cut short
 * if longer). Does nothing when err is NULL or errlen is 0, so callers pass
 * their own caller's buffer on unchecked. Returns nothing: callers write
 * `return hb_err(...), NULL;` where that reads better. Any thread; err is
 * the caller's.
 */
__attribute__((format(printf, 3, 4))) void hb_err(char *err, size_t errlen, const char *fmt,
						  ...);

/*
 * hb_say - print "<hb_prog>: <message>\n" on stderr, in one write where
 * memory allows (lines of threads or processes sharing stderr do not mix).
 * Notes and warnings too: "note: ..." is a message.
 */
__attribute__((format(printf, 1, 2))) void hb_say(const char *fmt, ...);

/*
 * hb_usage_error - hb_say for bad input: "<hb_prog>: <message> (see
 * --help)\n". Returns 2, the exit status of bad input, so that a parser
 * writes `return hb_usage_error(...);`.
 */
__attribute__((format(printf, 1, 2))) int hb_usage_error(const char *fmt, ...);

#endif /* HB_ERRORS_H */
