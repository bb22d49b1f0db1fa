/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * manifest.h - `numaring-bench --manifest`: every name the scripts need, as
 * JSON on one stream, each list made from the table the harness itself runs
 * on: the queues and what each can do (queue.h's adapters), the ring's
 * look-ups, gates and backoffs (its name tables), the workloads, placements,
 * item kinds and accountings (options.c, item_sum.c), the kinds of probe.csv's
 * rows (probe_rows.h), the options' bounds (bounds.h) and summary.csv's
 * columns (schema.h, as --schema prints them).
 *
 * The scripts read a committed copy, scripts/manifest.json, through
 * scripts/manifest.py; scripts/tests/test_manifest.py keeps the copy equal to
 * this output (regenerate it: build/numaring-bench --manifest >
 * scripts/manifest.json).
 */
#ifndef HB_MANIFEST_H
#define HB_MANIFEST_H

#include <stdio.h>

/* Write the manifest to f. */
void hb_print_manifest(FILE *f);

#endif /* HB_MANIFEST_H */
