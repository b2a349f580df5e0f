/* SPDX-License-Identifier: MIT */
/* Directory listings for the Landlock planner (SPEC 3.3): gathered before planning. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/hostfs.h"
#include "host/ll_listing.h"
#include "util/util.h"

int cf_host_ll_listings(const struct cf_strv *dirs, struct cf_ll_listings *out,
			struct confine_error *err)
{
	for (size_t i = 0; i < dirs->n; i++) {
		struct cf_ll_listing *l = cf_ll_listings_add(out, dirs->v[i]);
		if (!l)
			return cf_nomem(err);
		int fd = open(dirs->v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d) {
			l->error = errno ? errno : EIO;
			if (fd >= 0)
				close(fd);
			continue;
		}
		struct dirent *e;
		errno = 0;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			enum cf_kind k = cf_kind_of_entry(dirfd(d), e->d_name, e->d_type);
			if (k == CF_KIND_MISSING)
				continue; /* gone since readdir: nothing to allow */
			if (cf_ll_listing_add(l, e->d_name, k) < 0) {
				closedir(d);
				return cf_nomem(err);
			}
		}
		if (errno)
			l->error = errno;
		closedir(d);
	}
	cf_ll_listings_sort(out);
	return 0;
}
