/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output.h - files written whole: each result file is written to a hidden
 * temporary in the same directory, flushed to disk, then renamed, so a
 * reader (or an interrupted run) never sees half a file.
 */
#ifndef HB_OUTPUT_H
#define HB_OUTPUT_H

#include <stdio.h>

struct hb_file {
	FILE *f;
	char tmp[4096];
	char final[4096];
};

/* Create directory dir (and its parents). Returns 0 or -errno. */
int hb_mkdirs(const char *dir);

/* Check that files can be created in dir (creates dir). Returns 0 or -errno. */
int hb_dir_writable(const char *dir);

/* Open dir/name for writing, through a temporary. Returns 0 or -errno. */
int hb_file_open(struct hb_file *hf, const char *dir, const char *name);

/* Flush, fsync, close and rename into place. Returns 0 or -errno (then the
 * temporary is removed and no file appears). */
int hb_file_commit(struct hb_file *hf);

/* Close and remove the temporary (after an error). */
void hb_file_abort(struct hb_file *hf);

/* Write s as one CSV field (quoted when it holds , " or a line break). */
void hb_csv_field(FILE *f, const char *s);

/* Write s as a JSON string literal, escaped. */
void hb_json_str(FILE *f, const char *s);

#endif /* HB_OUTPUT_H */
