/* SPDX-License-Identifier: MIT */
/*
 * The probe's remedy for Ubuntu 23.10+'s AppArmor restriction of user namespaces names
 * confine's own profile (dist/apparmor), in each of its three situations: not installed,
 * installed for another copy of confine than the one running, installed but not in force.
 */
#include <string.h>

#include "probe/hints.h"
#include "../tap.h"

int main(void)
{
	char h[1024];
	cf_hint_apparmor(h, sizeof(h), "/etc/apparmor.d/confine", false, "/usr/local/bin/confine",
			 false);
	TAP_OK(strstr(h, "kernel.apparmor_restrict_unprivileged_userns=1") &&
		   strstr(h, "sudo make install") && strstr(h, "/etc/apparmor.d/confine") &&
		   strstr(h, "run /usr/local/bin/confine"),
	       "not installed: install confine, which installs and loads the profile (%s)", h);
	TAP_OK(strstr(h, "kernel.apparmor_restrict_unprivileged_userns=0") != NULL,
	       "... and the sysctl second");
	cf_hint_apparmor(h, sizeof(h), "/etc/apparmor.d/confine", true, "/usr/local/bin/confine",
			 false);
	TAP_OK(strstr(h, "allows 'userns' to /usr/local/bin/confine only: run that one") != NULL,
	       "another copy running: run the installed one (%s)", h);
	cf_hint_apparmor(h, sizeof(h), "/etc/apparmor.d/confine", true, "/usr/local/bin/confine",
			 true);
	TAP_OK(strstr(h, "not in force: load it with 'sudo apparmor_parser -r "
			 "/etc/apparmor.d/confine'") != NULL,
	       "installed, not loaded: load it (%s)", h);
	return tap_done();
}
