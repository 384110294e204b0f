/* Placeholder parsers until backends/parse_*.c land; the backends owner deletes this file. */
#include "backends/parsers.h"
#include "zlbench/error.h"
int zl_parse_nvidia_smi_csv(const char *o, struct zl_devlist *d, struct strbuf *e) { (void)o; (void)d; return zl_error(e, "parser not implemented"); }
int zl_parse_mthreads_gmi(const char *o, struct zl_devlist *d, struct strbuf *e) { (void)o; (void)d; return zl_error(e, "parser not implemented"); }
int zl_parse_rocm_smi_json(const char *o, struct zl_devlist *d, struct strbuf *e) { (void)o; (void)d; return zl_error(e, "parser not implemented"); }
int zl_parse_npu_smi_info(const char *o, struct zl_devlist *d, struct strbuf *e) { (void)o; (void)d; return zl_error(e, "parser not implemented"); }
