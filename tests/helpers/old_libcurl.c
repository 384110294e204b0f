/*
 * A stand-in for a libcurl older than 7.85, for tests/cli/t0707-push-libcurl.sh:
 * loaded through ZL_CURL_LIB, it forwards everything to the real libcurl (its
 * dependency) but refuses CURLOPT_PROTOCOLS_STR as unknown, like libcurl < 7.85,
 * and counts the CURLOPT_PROTOCOLS calls in $ZL_TEST_OLDCURL_LOG. Test code only.
 * Build: cc -shared -fPIC -o old_libcurl.so old_libcurl.c -Wl,--no-as-needed -l:libcurl.so.4 -ldl
 */
#define _GNU_SOURCE
#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <curl/curl.h>

CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	static CURLcode (*real)(CURL *, CURLoption, ...);
	va_list ap;
	CURLcode rc;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "curl_easy_setopt");
	if (!real)
		return CURLE_FAILED_INIT;
	if (option == CURLOPT_PROTOCOLS_STR)
		return CURLE_UNKNOWN_OPTION;
	if (option == CURLOPT_PROTOCOLS) {
		const char *log = getenv("ZL_TEST_OLDCURL_LOG");
		FILE *f = log ? fopen(log, "a") : NULL;

		if (f) {
			va_start(ap, option);
			fprintf(f, "CURLOPT_PROTOCOLS %ld\n", va_arg(ap, long));
			va_end(ap);
			fclose(f);
		}
	}
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = real(curl, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		rc = real(curl, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = real(curl, option, va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		rc = real(curl, option, va_arg(ap, curl_off_t));
	else
		rc = real(curl, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}
