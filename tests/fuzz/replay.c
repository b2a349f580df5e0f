/* SPDX-License-Identifier: MIT */
/*
 * Replays a fuzz corpus through a LLVMFuzzerTestOneInput, one TAP line per file, so that every
 * seed and every crasher ever found runs in the ordinary test suite, built with any compiler.
 * Usage: test-fuzz-TARGET [DIR...]   (default: the target's corpus directory in the source tree)
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int n_run;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s: cannot open\n", ++n_run, path);
		return 1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			cap *= 2;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		printf("not ok %d - %s: out of memory\n", ++n_run, path);
		return 1;
	}
	/* A copy of exactly `len` bytes, so that AddressSanitizer sees any read past the end. */
	uint8_t *exact = malloc(len ? len : 1);
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	printf("ok %d - %s\n", ++n_run, path);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		printf("not ok %d - %s: cannot open the corpus directory\n", ++n_run, dir);
		return 1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char **nv = realloc(names, (n + 1) * sizeof(*names));
		if (!nv)
			break;
		names = nv;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			bad |= replay_file(path);
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;
	if (argc < 2)
		bad = replay_dir(CORPUS_DIR);
	for (int i = 1; i < argc; i++)
		bad |= replay_dir(argv[i]);
	printf("1..%d\n", n_run);
	return bad;
}
