/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output.c - whole-file writes, CSV and JSON escaping (see output.h).
 */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hb_mkdirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof path)
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char keep = path[i];
		path[i] = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			return -errno;
		path[i] = keep;
	}
	struct stat st;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return 0;
}

int hb_dir_writable(const char *dir)
{
	char probe[4096];
	int rc = hb_mkdirs(dir);
	if (rc < 0)
		return rc;
	if (snprintf(probe, sizeof probe, "%s/.numaring-write-test.%d", dir, (int)getpid()) >=
	    (int)sizeof probe)
		return -ENAMETOOLONG;
	int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(probe);
	return 0;
}

int hb_file_open(struct hb_file *hf, const char *dir, const char *name)
{
	memset(hf, 0, sizeof *hf);
	if (snprintf(hf->final, sizeof hf->final, "%s/%s", dir, name) >= (int)sizeof hf->final ||
	    snprintf(hf->tmp, sizeof hf->tmp, "%s/.%s.tmp.%d", dir, name, (int)getpid()) >=
		    (int)sizeof hf->tmp)
		return -ENAMETOOLONG;
	hf->f = fopen(hf->tmp, "w");
	if (!hf->f)
		return -errno;
	return 0;
}

int hb_file_commit(struct hb_file *hf)
{
	int rc = 0;
	if (fflush(hf->f) != 0 || ferror(hf->f))
		rc = -(errno ? errno : EIO);
	if (rc == 0 && fsync(fileno(hf->f)) < 0)
		rc = -errno;
	if (fclose(hf->f) != 0 && rc == 0)
		rc = -(errno ? errno : EIO);
	hf->f = NULL;
	if (rc == 0 && rename(hf->tmp, hf->final) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(hf->tmp);
	return rc;
}

void hb_file_abort(struct hb_file *hf)
{
	if (hf->f)
		fclose(hf->f);
	hf->f = NULL;
	if (hf->tmp[0])
		unlink(hf->tmp);
}

void hb_csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void hb_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
