/* Placeholder enumeration until backends/enumerate.c lands; the backends owner deletes this file. */
#include <stdlib.h>
#include "zlbench/backend.h"
#include "zlbench/error.h"
#include "zlbench/util.h"
void zl_devlist_release(struct zl_devlist *dl) { (void)dl; }
struct zl_device *zl_devlist_add(struct zl_devlist *dl, int index, const char *name, const char *uuid, long long mem, const char *drv) { (void)dl; (void)index; (void)name; (void)uuid; (void)mem; (void)drv; return NULL; }
const struct zl_device *zl_devlist_find(const struct zl_devlist *dl, int index) { (void)dl; (void)index; return NULL; }
int zl_backend_detect(const struct zl_backend **out, struct strbuf *err) { (void)out; return zl_error(err, "no backend detected: pass --backend"); }
int zl_backend_enumerate(const struct zl_backend *b, struct zl_devlist *dl) { (void)b; dl->available = 0; dl->how = xstrdup("not implemented"); return 0; }
const char *zl_dev_root(void) { const char *r = getenv("ZL_DEV_ROOT"); return r && *r ? r : "/dev"; }
