/* SPDX-License-Identifier: MIT */
/*
 * ll-open-tool DIR N: the open(2) traffic of a build, for bench/landlock-opens: N opens of the
 * files DIR/src/fK.h (K = 0..99, round robin), one byte read from each, and every 100th open a
 * new object file DIR/out/oK.o created and written (a compiler's output).  Prints nothing;
 * exits 1 at the first failure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long n = strtol(argv[2], NULL, 10);
	char path[4096], c;
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/src/f%ld.h", argv[1], i % 100);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, &c, 1) != 1) {
			perror(path);
			return 1;
		}
		close(fd);
		if (i % 100 == 99) {
			snprintf(path, sizeof(path), "%s/out/o%ld.o", argv[1], (i / 100) % 50);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || write(fd, "o", 1) != 1) {
				perror(path);
				return 1;
			}
			close(fd);
		}
	}
	return 0;
}
