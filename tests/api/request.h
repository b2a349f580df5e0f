/* SPDX-License-Identifier: MIT */
/*
 * The request of the API tests, as a host makes it: the command, its workspace, its
 * environment and this build's helper.  0, or a negative CONFINE_E_* with the cause in err;
 * *req, when set, is the caller's to free either way.
 */
#ifndef CONFINE_TESTS_API_REQUEST_H
#define CONFINE_TESTS_API_REQUEST_H

#include "confine.h"

static inline int test_request(confine_request **req, size_t argc, const char *const *argv,
			       const char *ws, const char *const *env, struct confine_error *err)
{
	int rc = confine_request_new(req, err);
	if (rc == 0)
		rc = confine_request_set_argv(*req, argc, argv, err);
	if (rc == 0)
		rc = confine_request_set_workspace(*req, ws, err);
	if (rc == 0)
		rc = confine_request_set_environment(*req, env, err);
	if (rc == 0)
		rc = confine_request_set_helper(*req, CONFINE_TEST_HELPER_DIR "/confine-init", err);
	return rc;
}

#endif
