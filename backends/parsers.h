/* Output parsers of the vendors' query tools (backends/ only). */
#ifndef ZLBENCH_BACKENDS_PARSERS_H
#define ZLBENCH_BACKENDS_PARSERS_H

#include "zlbench/backend.h"

int zl_parse_nvidia_smi_csv(const char *output, struct zl_devlist *dl, struct strbuf *err);
int zl_parse_mthreads_gmi(const char *output, struct zl_devlist *dl, struct strbuf *err);
int zl_parse_rocm_smi_json(const char *output, struct zl_devlist *dl, struct strbuf *err);
int zl_parse_npu_smi_info(const char *output, struct zl_devlist *dl, struct strbuf *err);

#endif
