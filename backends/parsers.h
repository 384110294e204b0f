/*
 * Output parsers of the vendors' query tools (backends/ only).
 *
 * Each parser takes the tool's whole captured output (stdout and stderr merged,
 * NUL-terminated) and appends one device per accelerator to dl. It never trusts
 * the text: garbage, truncated or empty input gives -1 with a message, never a
 * crash. Devices already appended stay in dl on failure; the caller releases it.
 */
#ifndef ZLBENCH_BACKENDS_PARSERS_H
#define ZLBENCH_BACKENDS_PARSERS_H

#include <stddef.h>
#include "zlbench/backend.h"
#include "zlbench/strvec.h"

/*
 * The nvidia-smi --query-gpu fields the cuda row asks for, in this order; the
 * parser reads a headerless CSV by this order and a CSV with a header by name.
 */
#define ZL_NVSMI_QUERY_FIELDS "index,name,uuid,pci.bus_id,memory.total,driver_version"

/* nvidia-smi --query-gpu=ZL_NVSMI_QUERY_FIELDS --format=csv[,noheader][,nounits] */
int zl_parse_nvidia_smi_csv(const char *output, struct zl_devlist *dl, struct strbuf *err);
/* mthreads-gmi (its default table, old 63-column and new 69-column layouts) */
int zl_parse_mthreads_gmi(const char *output, struct zl_devlist *dl, struct strbuf *err);
/* rocm-smi --showid --showproductname ... --json; also its "GPU[i] : Key: value" text */
int zl_parse_rocm_smi_json(const char *output, struct zl_devlist *dl, struct strbuf *err);
/* amd-smi list (text) */
int zl_parse_amd_smi_list(const char *output, struct zl_devlist *dl, struct strbuf *err);
/* npu-smi info (the table; one device per chip) */
int zl_parse_npu_smi_info(const char *output, struct zl_devlist *dl, struct strbuf *err);

/* Helpers shared by the parsers (backends/parse_util.c). */

/*
 * Copy the next line at *pos into line (no end of line, no trailing '\r') and
 * advance *pos. Returns 0 when there are no more lines.
 */
int zl_next_line(const char **pos, struct strbuf *line);
/*
 * A field's value, trimmed, as a new string; NULL when it is empty or one of the
 * tools' spellings of "unknown" (N/A, [N/A], [Not Supported], ...). Caller frees.
 */
char *zl_field_dup(const char *s, size_t len);
/*
 * A size such as "143771", "143771 MiB", "81920MiB", "16 GiB" or "17163091968"
 * in MiB. unit is used when the text has none ("B" or "MiB"). 0 ok, -1 when it
 * is not a size (then *mib is untouched).
 */
int zl_parse_size_mib(const char *s, size_t len, const char *unit, long long *mib);
/* A whole trimmed field as a non-negative int. 0 ok, -1 otherwise. */
int zl_parse_index(const char *s, size_t len, int *out);
/*
 * Split line at sep, keeping empty fields (unlike strvec_split), each trimmed.
 * Appends to out.
 */
void zl_split_keep(struct strvec *out, const char *line, char sep);
/* "no devices in <tool> output" with the output's first line, for parsers that found none. */
int zl_parse_none(struct strbuf *err, const char *tool, const char *output);

/*
 * After parsing: sort by index; give devices without a uuid their bus id; where
 * several devices report the same uuid, use their bus ids instead. Returns the
 * number of devices whose uuid is still shared with another afterwards.
 * *replaced gets how many duplicate uuids were replaced (may be NULL).
 */
size_t zl_devlist_settle_ids(struct zl_devlist *dl, size_t *replaced);

#endif
