/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER: being written (JSON position index). */
typedef int cf_placeholder_jsonpos;
