/*
 * libcurl, bound at first use. Linking libcurl at load time pulls in some thirty
 * shared libraries (TLS, HTTP/2, LDAP, Kerberos...) and costs every zlbench
 * invocation about 35 ms and 6 MiB of RSS here, against goals of 5 ms and 8 MiB
 * for a failing preflight. zlbench is compiled against libcurl's headers (found
 * with pkg-config) and these definitions forward each call to the real function,
 * looked up with dlopen()/dlsym() the first time one is needed.
 * A missing libcurl makes the calls fail with CURLE_FAILED_INIT (or NULL), never crash.
 * ZL_CURL_LIB names the one library to load instead (for tests: a path that does
 * not exist is a machine without libcurl, a wrapper library an older libcurl).
 */
#define CURL_DISABLE_TYPECHECK 1
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "zlbench/env.h"
#include "zlbench/banned.h"

static void *lib;
static int tried;

/* The soname the headers were built for first, then the development link. */
static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so", NULL };

static void *sym(const char *name)
{
	const char *const *s;

	if (!tried) {
		const char *forced = zl_env(ZL_ENV_CURL_LIB);

		tried = 1;
		if (forced && *forced)
			lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
		for (s = sonames; !(forced && *forced) && *s && !lib; s++)
			lib = dlopen(*s, RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			const char *why = dlerror();
			fprintf(stderr, "zlbench: warning: cannot load libcurl: %s\n", why ? why : "unknown error");
		}
	}
	return lib ? dlsym(lib, name) : NULL;
}

/* p_<name>: the real function, of the same type as the forwarder (GCC's __typeof__). */
#define BIND(name) \
	static __typeof__(&name) p_##name; \
	if (!p_##name) \
		*(void **)&p_##name = sym(#name)

CURLcode (curl_global_init)(long flags)
{
	BIND(curl_global_init);
	return p_curl_global_init ? p_curl_global_init(flags) : CURLE_FAILED_INIT;
}

void (curl_global_cleanup)(void)
{
	BIND(curl_global_cleanup);
	if (p_curl_global_cleanup)
		p_curl_global_cleanup();
}

CURL *(curl_easy_init)(void)
{
	BIND(curl_easy_init);
	return p_curl_easy_init ? p_curl_easy_init() : NULL;
}

/* The option number says the argument's type, as in libcurl's own vsetopt. */
CURLcode (curl_easy_setopt)(CURL *curl, CURLoption option, ...)
{
	va_list ap;
	CURLcode rc;
	BIND(curl_easy_setopt);

	if (!p_curl_easy_setopt)
		return CURLE_FAILED_INIT;
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = p_curl_easy_setopt(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = p_curl_easy_setopt(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = p_curl_easy_setopt(curl, option, va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		rc = p_curl_easy_setopt(curl, option, va_arg(ap, curl_off_t));
	else
		rc = p_curl_easy_setopt(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode (curl_easy_perform)(CURL *curl)
{
	BIND(curl_easy_perform);
	return p_curl_easy_perform ? p_curl_easy_perform(curl) : CURLE_FAILED_INIT;
}

void (curl_easy_cleanup)(CURL *curl)
{
	BIND(curl_easy_cleanup);
	if (p_curl_easy_cleanup)
		p_curl_easy_cleanup(curl);
}

/* Every getinfo argument is a pointer. */
CURLcode (curl_easy_getinfo)(CURL *curl, CURLINFO info, ...)
{
	va_list ap;
	void *arg;
	BIND(curl_easy_getinfo);

	if (!p_curl_easy_getinfo)
		return CURLE_FAILED_INIT;
	va_start(ap, info);
	arg = va_arg(ap, void *);
	va_end(ap);
	return p_curl_easy_getinfo(curl, info, arg);
}

const char *(curl_easy_strerror)(CURLcode code)
{
	BIND(curl_easy_strerror);
	return p_curl_easy_strerror ? p_curl_easy_strerror(code) : "libcurl could not be loaded";
}

struct curl_slist *(curl_slist_append)(struct curl_slist *list, const char *s)
{
	BIND(curl_slist_append);
	return p_curl_slist_append ? p_curl_slist_append(list, s) : NULL;
}

void (curl_slist_free_all)(struct curl_slist *list)
{
	BIND(curl_slist_free_all);
	if (p_curl_slist_free_all)
		p_curl_slist_free_all(list);
}

void (curl_free)(void *p)
{
	BIND(curl_free);
	if (p_curl_free)
		p_curl_free(p);
}

CURLU *(curl_url)(void)
{
	BIND(curl_url);
	return p_curl_url ? p_curl_url() : NULL;
}

void (curl_url_cleanup)(CURLU *u)
{
	BIND(curl_url_cleanup);
	if (p_curl_url_cleanup)
		p_curl_url_cleanup(u);
}

CURLUcode (curl_url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags)
{
	BIND(curl_url_set);
	return p_curl_url_set ? p_curl_url_set(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode (curl_url_get)(CURLU *u, CURLUPart what, char **part, unsigned int flags)
{
	BIND(curl_url_get);
	return p_curl_url_get ? p_curl_url_get(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

const char *(curl_url_strerror)(CURLUcode code)
{
	BIND(curl_url_strerror);
	return p_curl_url_strerror ? p_curl_url_strerror(code) : "libcurl could not be loaded";
}

curl_version_info_data *(curl_version_info)(CURLversion v)
{
	BIND(curl_version_info);
	return p_curl_version_info ? p_curl_version_info(v) : NULL;
}
