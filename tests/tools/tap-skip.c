/* SPDX-License-Identifier: MIT */
/* tap-skip: one passing check and one TAP_SKIP, for tests/cli/ci.t (a C test's skip obeys the
 * must-work switch like the shell tests' `skip`). */
#include "../unit/tap.h"

int main(void)
{
	TAP_OK(1, "a check that ran");
	TAP_SKIP("a check this machine cannot run");
	return tap_done();
}
