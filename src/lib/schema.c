/* The schema key of every JSON document zlbench prints (include/zlbench/schema.h). */
#include "zlbench/schema.h"
#include "zlbench/banned.h"

int zl_json_add_schema(cJSON *doc, const char *schema)
{
	cJSON *item;

	if (!doc || !cJSON_IsObject(doc))
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema");
	item = cJSON_CreateString(schema);
	/* added under its key, then moved to the front: a reader sees what the document is first */
	if (!item || !cJSON_AddItemToObject(doc, "schema", item)) {
		cJSON_Delete(item);
		return -1;
	}
	cJSON_DetachItemViaPointer(doc, item);
	if (!cJSON_InsertItemInArray(doc, 0, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}
