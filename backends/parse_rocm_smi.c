/*
 * rocm-smi --showid --showproductname --showuniqueid --showbus --showmeminfo vram
 *          --showdriverversion --json
 *
 * prints one JSON object: {"card0": {"Device Name": ..., "Unique ID": ...,
 * "PCI Bus": ..., "VRAM Total Memory (B)": ...}, ..., "system": {"Driver version": ...}}
 * (rocm_smi.py: formatJson() keys cards "card<N>"; printSysLog() files the driver
 * under "system"). A warning line can come before the object, so parsing starts
 * at the first '{'. Without --json the same pairs print as "GPU[N]\t\t: Key: value"
 * lines, which this parser reads too when the output holds no JSON object.
 *
 * Key spellings moved between ROCm versions ("Card series" in 4.x, "Card Series"
 * in 6.x): keys are matched case-insensitively.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends/parsers.h"
#include "zlbench/error.h"
#include "zlbench/util.h"
#include "zlbench/banned.h"

enum rocm_field { R_NAME, R_SERIES, R_UUID, R_BUS, R_VRAM_BYTES, R_DRIVER };

static const struct { const char *key; enum rocm_field field; } rocm_keys[] = {
	{ "Device Name", R_NAME },
	{ "Card Series", R_SERIES },
	{ "Unique ID", R_UUID },
	{ "PCI Bus", R_BUS },
	{ "VRAM Total Memory (B)", R_VRAM_BYTES },
	{ "Driver version", R_DRIVER },
};

static int rocm_field_of(const char *key, enum rocm_field *f)
{
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(rocm_keys); i++)
		if (zl_strcaseeq(rocm_keys[i].key, key)) {
			*f = rocm_keys[i].field;
			return 0;
		}
	return -1;
}

static struct zl_device *device_at(struct zl_devlist *dl, int index)
{
	size_t i;

	for (i = 0; i < dl->nr; i++)
		if (dl->v[i].index == index)
			return &dl->v[i];
	return zl_devlist_add(dl, index, NULL, NULL, -1, NULL);
}

static void set_string(char **slot, char *value)
{
	free(*slot);
	*slot = value;
}

/* Record one "Key: value" pair of device index (index < 0: a system-wide pair). */
static void apply_pair(struct zl_devlist *dl, int index, const char *key, const char *value,
		       char **driver)
{
	enum rocm_field f;
	char *v;
	struct zl_device *d;
	long long mib;

	if (rocm_field_of(key, &f))
		return;
	v = zl_field_dup(value, strlen(value));
	if (f == R_DRIVER) {
		set_string(driver, v);
		return;
	}
	if (index < 0) {
		free(v);
		return;
	}
	d = device_at(dl, index);
	switch (f) {
	case R_NAME:
		set_string(&d->name, v);
		return;
	case R_SERIES:
		/* ROCm 4.x prints the device id ("0x738c") as the series: no name at all */
		if (!d->name && v && !zl_starts_with(v, "0x"))
			d->name = v;
		else
			free(v);
		return;
	case R_UUID:
		set_string(&d->uuid, v);
		return;
	case R_BUS:
		set_string(&d->bus_id, v);
		return;
	case R_VRAM_BYTES:
		if (v && !zl_parse_size_mib(v, strlen(v), "B", &mib))
			d->memory_mib = mib;
		free(v);
		return;
	case R_DRIVER:
		free(v);
		return;
	}
}

/* "card12" -> 12 */
static int card_index(const char *key, int *index)
{
	if (!key || !zl_starts_with(key, "card"))
		return -1;
	return zl_parse_index(key + 4, strlen(key + 4), index);
}

static int parse_json(const char *json, struct zl_devlist *dl, char **driver, struct strbuf *err)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(json, &end, 0);
	cJSON *card;

	if (!root || !cJSON_IsObject(root)) {
		size_t at = end ? (size_t)(end - json) : 0;

		cJSON_Delete(root);
		return zl_error(err, "rocm-smi printed JSON that does not parse (at byte %zu of the object)", at);
	}
	cJSON_ArrayForEach(card, root) {
		cJSON *item;
		int index = -1;

		if (!cJSON_IsObject(card))
			continue;
		if (card_index(card->string, &index) && !zl_strcaseeq(card->string, "system"))
			continue;
		/* every card is a device, even one whose keys are all unknown to us */
		if (index >= 0)
			device_at(dl, index);
		cJSON_ArrayForEach(item, card)
			if (item->string && cJSON_IsString(item))
				apply_pair(dl, index, item->string, item->valuestring, driver);
	}
	cJSON_Delete(root);
	return 0;
}

/* "GPU[3]\t\t: Card Series: \t\tAqua Vanjaram" or "Driver version: 6.10.5". */
static void parse_text_line(const char *line, struct zl_devlist *dl, char **driver)
{
	struct strbuf key = STRBUF_INIT;
	const char *p = line, *colon;
	int index = -1;

	if (zl_starts_with(p, "GPU[")) {
		const char *close = strchr(p, ']');

		if (!close || zl_parse_index(p + 4, (size_t)(close - p - 4), &index))
			return;
		/* partition lines ("GPU[0] XCP[1]") describe parts of a device already listed */
		p = close + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			return;
		p++;
	}
	colon = strstr(p, ": ");
	if (!colon) {
		colon = strchr(p, ':');
		if (!colon || colon[1])
			return;
	}
	strbuf_add(&key, p, (size_t)(colon - p));
	strbuf_trim(&key);
	if (index >= 0)
		device_at(dl, index);
	apply_pair(dl, index, key.buf, colon + 1, driver);
	strbuf_release(&key);
}

int zl_parse_rocm_smi_json(const char *output, struct zl_devlist *dl, struct strbuf *err)
{
	const char *brace = strchr(output, '{');
	char *driver = NULL;
	size_t before = dl->nr, i;
	int ret = 0;

	if (brace) {
		ret = parse_json(brace, dl, &driver, err);
	} else {
		struct strbuf line = STRBUF_INIT;
		const char *pos = output;

		while (zl_next_line(&pos, &line))
			parse_text_line(line.buf, dl, &driver);
		strbuf_release(&line);
	}
	if (!ret && dl->nr == before)
		ret = zl_parse_none(err, "rocm-smi", output);
	for (i = before; !ret && driver && i < dl->nr; i++)
		if (!dl->v[i].driver)
			dl->v[i].driver = xstrdup(driver);
	free(driver);
	return ret;
}
