/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/json.h"
#include "util/utf8.h"

void cf_jobj_init(struct cf_jobj *j)
{
	j->o = json_object();
	j->oom = !j->o;
}

void cf_jobj_release(struct cf_jobj *j)
{
	json_decref(j->o);
	j->o = NULL;
}

char *cf_jobj_dump(struct cf_jobj *j)
{
	char *s = j->oom || !j->o ? NULL : json_dumps(j->o, JSON_COMPACT);
	cf_jobj_release(j);
	return s;
}

void cf_jput(struct cf_jobj *j, const char *key, json_t *v)
{
	if (!v || !j->o || json_object_set_new(j->o, key, v) < 0)
		j->oom = true;
}

json_t *cf_jstr(const char *s)
{
	if (cf_utf8_valid(s))
		return json_string(s);
	char *l = cf_utf8_lossy(s);
	json_t *v = l ? json_string(l) : NULL;
	free(l);
	return v;
}

static json_t *hex_of(const char *s)
{
	char *h = cf_hex((const unsigned char *)s, strlen(s));
	json_t *v = h ? json_string(h) : NULL;
	free(h);
	return v;
}

static void put_hex(struct cf_jobj *j, const char *key, json_t *v)
{
	char name[128];
	snprintf(name, sizeof(name), "%s_hex", key);
	cf_jput(j, name, v);
}

void cf_jput_str(struct cf_jobj *j, const char *key, const char *s)
{
	if (!s) {
		cf_jput(j, key, json_null());
		return;
	}
	cf_jput(j, key, cf_jstr(s));
	if (!cf_utf8_valid(s))
		put_hex(j, key, hex_of(s));
}

void cf_jput_strv(struct cf_jobj *j, const char *key, char *const *v, size_t n)
{
	json_t *a = json_array();
	bool lossy = false;
	for (size_t i = 0; a && i < n; i++) {
		if (json_array_append_new(a, cf_jstr(v[i])) < 0)
			j->oom = true;
		lossy = lossy || !cf_utf8_valid(v[i]);
	}
	cf_jput(j, key, a);
	if (!lossy)
		return;
	json_t *h = json_array();
	for (size_t i = 0; h && i < n; i++)
		if (json_array_append_new(h, cf_utf8_valid(v[i]) ? json_null() : hex_of(v[i])) < 0)
			j->oom = true;
	put_hex(j, key, h);
}

void cf_jput_int(struct cf_jobj *j, const char *key, long long v)
{
	cf_jput(j, key, json_integer((json_int_t)v));
}

void cf_jput_bool(struct cf_jobj *j, const char *key, bool v)
{
	cf_jput(j, key, json_boolean(v));
}

void cf_jput_null(struct cf_jobj *j, const char *key)
{
	cf_jput(j, key, json_null());
}

void cf_jput_obj(struct cf_jobj *j, const char *key, struct cf_jobj *child)
{
	if (child->oom)
		j->oom = true;
	cf_jput(j, key, child->o); /* steals the reference */
	child->o = NULL;
}
