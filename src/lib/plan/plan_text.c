/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written. */
typedef int cf_placeholder_plan_text;
