/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (host path canonicalisation). */
typedef int cf_placeholder_canon;
