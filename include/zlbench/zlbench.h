/* zlbench: common definitions: version and the one exit-code enum. */
#ifndef ZLBENCH_ZLBENCH_H
#define ZLBENCH_ZLBENCH_H

#ifndef ZL_VERSION_STRING
#define ZL_VERSION_STRING "0.0.0"
#endif

/*
 * Exit codes of every zlbench command. Only the cmd_* layer picks one; lower
 * layers return 0 / -1 and fill a message. Documented by zl_exit_docs below.
 */
enum zl_exit {
	ZL_EXIT_OK = 0,             /* all passed */
	ZL_EXIT_FAILED = 1,         /* a benchmark (or an op of a batch) failed */
	ZL_EXIT_USAGE = 2,          /* usage or configuration error */
	ZL_EXIT_PREFLIGHT = 3,      /* a named preflight check failed */
	ZL_EXIT_PYTEST_USAGE = 4,   /* pytest refused its command line */
	ZL_EXIT_NO_TESTS = 5,       /* pytest collected nothing */
	ZL_EXIT_INTERNAL = 70,      /* pytest internal error (pytest's own 3) */
	ZL_EXIT_TIMEOUT = 124,      /* --timeout expired */
	ZL_EXIT_SIGNAL_BASE = 128,  /* child killed by signal N: 128+N */
	ZL_EXIT_INTERRUPTED = 130   /* interrupted (SIGINT, or pytest's own 2) */
};

/*
 * What each exit code means, one row per enum zl_exit value in order of code (then a row
 * with a NULL meaning): `zlbench help exit-status` and the man page's EXIT STATUS.
 */
struct zl_exit_doc {
	int code;
	const char *tag;      /* as written: "2", "128+N" */
	const char *meaning;
};
extern const struct zl_exit_doc zl_exit_docs[];

/* Map a pytest exit status to the zlbench contract (pytest 3 -> 70, 2 -> 130). */
int zl_exit_from_pytest(int pytest_status);

#ifndef ZL_ARRAY_SIZE
#define ZL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* A number macro as a string literal, for help text: ZL_STR(DEFAULT_RUNS) is "3". */
#define ZL_STR_(x) #x
#define ZL_STR(x) ZL_STR_(x)

#endif
