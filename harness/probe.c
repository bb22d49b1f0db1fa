/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe.c - numaring-bench --probe: cache-line round trips between CPUs,
 * node look-up costs, the cost of one PAUSE, contended fetch-and-add
 * (within and across nodes), cache-to-cache streaming of lines another
 * core has just written, and the memory read bandwidth of one thread and
 * of a node's threads at once, of this host, written to <outdir>/probe.csv
 * (see probe.h). This file runs them in order and writes the file; each
 * measurement has a file of its own (probe_pvt.h lists them).
 *
 * Every measurement runs on threads pinned with pthread_setaffinity_np (the
 * caller's own affinity is never touched), warms up first, then times
 * batches with hc_now() and keeps the median and the p90-p10 width of the
 * batches: the machines this runs on are shared and noisy, so a mean alone
 * would say little. The timed loops allocate nothing and make no system
 * call, except the look-up modes that are system calls by definition
 * (syscall; libnuma and table through sched_getcpu where glibc has no rseq).
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "errors.h"
#include "probe_rows.h"

/* Round trips per CPU pair (hp_opts.rounds 0). */
#define C2C_ROUNDS_FULL	 20000u
#define C2C_ROUNDS_QUICK 2000u

/* ---- 6. meta, and the whole run --------------------------------------------- */

static int meta_str(struct hp_probe *p, const char *fact, const char *v)
{
	struct hp_row *r;
	HP_ADD_ROW(r, p, HP_KIND(meta), "", fact);
	snprintf(r->vstr, sizeof r->vstr, "%s", v);
	return 0;
}

static int meta_num(struct hp_probe *p, const char *fact, double v, const char *unit)
{
	struct hp_row *r;
	HP_ADD_ROW(r, p, HP_KIND(meta), unit, fact);
	r->value = v;
	return 0;
}

static int meta_uint(struct hp_probe *p, const char *fact, unsigned v)
{
	char b[16];
	snprintf(b, sizeof b, "%u", v);
	return meta_str(p, fact, b);
}

static int probe_all(struct hp_probe *p, const struct hp_opts *o)
{
	unsigned rounds = o && o->rounds ? o->rounds
			  : p->quick	 ? C2C_ROUNDS_QUICK
					 : C2C_ROUNDS_FULL;
	int rc;
	if ((rc = meta_str(p, HP_FACT(topology), p->t->emulated ? "emulated" : "real")) ||
	    (rc = meta_str(p, HP_FACT(clock), hc.source)) ||
	    (rc = meta_num(p, HP_FACT(timer_overhead_ns), hc.overhead_ns, "ns")) ||
	    (rc = meta_uint(p, HP_FACT(nodes), p->t->nnodes)) ||
	    (rc = meta_uint(p, HP_FACT(cpus), p->ncpus)) ||
	    (rc = meta_uint(p, HP_FACT(rounds), rounds)) ||
	    (rc = meta_str(p, HP_FACT(mode), p->quick ? "quick" : "full")))
		return rc;
	hp_progress(p, "%s topology, %u nodes, %u CPUs; clock %s (%.1f ns per read)",
		    p->t->emulated ? "emulated" : "real", p->t->nnodes, p->ncpus, hc.source,
		    hc.overhead_ns);

	struct hp_c2c_result *res = NULL;
	size_t nres = 0;
	rc = hp_probe_c2c(p, rounds, &res, &nres);
	if (!rc)
		rc = hp_c2c_summaries(p, res, nres);
	if (!rc)
		rc = hp_probe_lookup(p);
	if (!rc)
		rc = hp_probe_pause(p);
	if (!rc)
		rc = hp_probe_handover(p);
	if (!rc)
		rc = hp_probe_faa(p, res, nres);
	free(res);
	if (!rc)
		rc = hp_probe_c2c_bw(p);
	if (!rc)
		rc = hp_probe_bw(p);
	if (!rc)
		rc = hp_probe_bw_mt(p);
	return rc;
}

int hp_probe_run(const struct numaring_topology *t, const char *outdir, const struct hp_opts *o,
		 char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!t || !outdir || !*outdir) {
		hb_err(err, errlen, "probe: no topology or no output directory");
		return -EINVAL;
	}
	struct hp_probe p;
	memset(&p, 0, sizeof p);
	p.t = t;
	p.quick = o && o->quick;
	p.progress = o ? o->progress : NULL;
	p.err = err;
	p.errlen = errlen;
	for (int c = 0; c < NUMARING_MAX_CPUS; c++)
		p.node_of[c] = -1;
	for (unsigned k = 0; k < t->nnodes && k < NUMARING_MAX_NODES; k++)
		for (int c = 0; c < NUMARING_MAX_CPUS; c++)
			if (CPU_ISSET(c, &t->cpus[k]) && p.node_of[c] < 0) {
				p.node_of[c] = (int)k;
				p.ncpus++;
			}
	if (!p.ncpus) {
		hb_err(err, errlen, "probe: the topology has no CPU");
		return -EINVAL;
	}
	int rc = hp_find_likwid(o, p.likwid, sizeof p.likwid, err, errlen);
	if (rc)
		return rc;
	if (hc.overhead_ns <= 0.0 && hc_init() != 0) {
		hb_err(err, errlen, "probe: NUMARING_CLOCK must be \"tsc\" or \"gettime\"");
		return -EINVAL;
	}
	p.cpu = calloc(p.ncpus, sizeof *p.cpu);
	p.cpu_node = calloc(p.ncpus, sizeof *p.cpu_node);
	size_t plen = strlen(outdir) + sizeof "/.probe.csv.XXXXXX";
	char *tmp = malloc(plen), *final = malloc(plen);
	int fd = -1;
	if (!p.cpu || !p.cpu_node || !tmp || !final) {
		hb_err(err, errlen, "probe: out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (int c = 0, i = 0; c < NUMARING_MAX_CPUS; c++)
		if (p.node_of[c] >= 0) {
			p.cpu[i] = c;
			p.cpu_node[i++] = p.node_of[c];
		}

	/* the file first: an output directory we cannot write fails at once */
	snprintf(tmp, plen, "%s/.probe.csv.XXXXXX", outdir);
	snprintf(final, plen, "%s/probe.csv", outdir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot create a file in %s: %s", outdir, strerror(-rc));
		goto out;
	}
	if (fchmod(fd, 0644) < 0) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot set the mode of %s: %s", tmp, strerror(-rc));
		goto fail;
	}

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = probe_all(&p, o);
	if (rc)
		goto fail;

	FILE *f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot write %s: %s", tmp, strerror(-rc));
		goto fail;
	}
	fd = -1;
	hp_write_rows(f, &p);
	int werr = ferror(f) ? (errno ? errno : EIO) : 0;
	if (!werr && fflush(f) != 0)
		werr = errno;
	if (!werr && fsync(fileno(f)) != 0)
		werr = errno;
	if (fclose(f) != 0 && !werr)
		werr = errno;
	if (werr) {
		rc = -werr;
		hb_err(err, errlen, "probe: cannot write %s: %s", tmp, strerror(werr));
		goto fail;
	}
	if (rename(tmp, final) < 0) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot rename %s to %s: %s", tmp, final, strerror(-rc));
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hp_progress(&p, "wrote %s (%zu rows, %.1f s)", final, p.nrows,
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	fd = -1;
	unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(final);
	free(p.cpu);
	free(p.cpu_node);
	free(p.rows);
	return rc;
}
