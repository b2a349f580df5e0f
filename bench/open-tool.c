/* SPDX-License-Identifier: MIT */
/*
 * open-tool: a build-like loop of opens for bench/opens (R36's cost).
 *
 *   open-tool DIR N
 *
 * Makes N opens the way a compiler looking for headers does: for each of the files under DIR
 * (cycled), two include directories are searched in vain first (two opens that fail with
 * ENOENT), then the file is opened for reading, 4 KiB of it read and closed; every tenth file
 * is also written to a scratch file (an open for writing).  Prints the number of opens made.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	const char *dir = argv[1];
	long n = atol(argv[2]);
	char names[512][256];
	int k = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && k < 512 && (e = readdir(d)))
		if (e->d_type == DT_REG)
			snprintf(names[k++], sizeof(names[0]), "%s", e->d_name);
	if (d)
		closedir(d);
	if (!k)
		return 1;
	char path[600], buf[4096];
	long made = 0;
	for (long i = 0; made < n; i++) {
		const char *name = names[i % k];
		snprintf(path, sizeof(path), "%s/missing-a/%s", dir, name);
		made += open(path, O_RDONLY | O_CLOEXEC) < 0;
		snprintf(path, sizeof(path), "%s/missing-b/%s", dir, name);
		made += open(path, O_RDONLY | O_CLOEXEC) < 0;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 1;
		made++;
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
		close(fd);
		if (i % 10 == 0) {
			/* No O_TRUNC: freeing blocks would make the loop wait on the disk. */
			int w = open("open-tool.out", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (w < 0 || pwrite(w, buf, 16, 0) < 0)
				return 1;
			close(w);
			made++;
		}
	}
	printf("%ld\n", made);
	return 0;
}
