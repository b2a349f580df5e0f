/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

char *cf_path_normalize(const char *path)
{
	size_t n = strlen(path);
	char *out = malloc(n + 2);
	if (!out)
		return NULL;
	size_t len = 0;
	const char *p = path;
	out[len++] = '/';
	while (*p) {
		while (*p == '/')
			p++;
		const char *c = p;
		while (*p && *p != '/')
			p++;
		size_t cl = (size_t)(p - c);
		if (cl == 0 || (cl == 1 && c[0] == '.'))
			continue;
		if (cl == 2 && c[0] == '.' && c[1] == '.') {
			/* drop the last component; ".." above "/" stays at "/" */
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			continue;
		}
		if (len > 1)
			out[len++] = '/';
		memcpy(out + len, c, cl);
		len += cl;
	}
	out[len] = '\0';
	return out;
}

char *cf_path_join(const char *dir, const char *rel)
{
	if (rel[0] == '/')
		return cf_path_normalize(rel);
	size_t dl = strlen(dir), rl = strlen(rel);
	char *j = malloc(dl + rl + 2);
	if (!j)
		return NULL;
	memcpy(j, dir, dl);
	j[dl] = '/';
	memcpy(j + dl + 1, rel, rl + 1);
	char *n = cf_path_normalize(j);
	free(j);
	return n;
}

bool cf_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

int cf_path_cmp(const char *a, const char *b)
{
	/* '/' sorts before every other byte so that "/a/b" < "/a-b" and parents come first. */
	for (;; a++, b++) {
		unsigned char ca = (unsigned char)*a, cb = (unsigned char)*b;
		if (ca == cb) {
			if (!ca)
				return 0;
			continue;
		}
		if (!ca)
			return -1;
		if (!cb)
			return 1;
		if (ca == '/')
			return -1;
		if (cb == '/')
			return 1;
		return ca < cb ? -1 : 1;
	}
}

int cf_path_depth(const char *path)
{
	int d = 0;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

char *cf_path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return cf_strdup("/");
	return cf_strndup(path, (size_t)(slash - path));
}
