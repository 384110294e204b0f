/*
 * zl_backend_enumerate and zl_backend_detect against a fake device root
 * (ZL_DEV_ROOT) and fake query tools on a private PATH: tool answers, tool
 * missing or failing with /dev nodes, neither ("not verified"), and detection
 * of none, one or several vendors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "test_enum_fixture.h"
#include "zlbench/fsutil.h"
#include "zlbench/banned.h"

struct sandbox {
	char *top, *bin, *dev;
};

static int sandbox_setup(void **state)
{
	struct sandbox *sb = xcalloc(1, sizeof(*sb));
	struct strbuf err = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");

	if (zl_mkdtemp_in(tmp && *tmp ? tmp : "/tmp", "zl-test-enum-", &sb->top, &err))
		fail_msg("%s", err.buf);
	sb->bin = zl_path_join(sb->top, "bin");
	sb->dev = zl_path_join(sb->top, "dev");
	if (zl_mkdir_p(sb->bin, &err) || zl_mkdir_p(sb->dev, &err))
		fail_msg("%s", err.buf);
	/* only our fake tools are on PATH; the fakes themselves call /bin/cat by path */
	setenv("PATH", sb->bin, 1);
	setenv("ZL_DEV_ROOT", sb->dev, 1);
	unsetenv("ZL_QUERY_TIMEOUT");
	strbuf_release(&err);
	*state = sb;
	return 0;
}

static int sandbox_teardown(void **state)
{
	struct sandbox *sb = *state;
	struct strbuf err = STRBUF_INIT;

	if (zl_remove_tree(sb->top, &err))
		fprintf(stderr, "%s\n", err.buf);
	free(sb->top);
	free(sb->bin);
	free(sb->dev);
	free(sb);
	strbuf_release(&err);
	return 0;
}

/* A fake tool: a shell script with body, executable, in the sandbox's bin. */
static void fake_tool(struct sandbox *sb, const char *name, const char *body)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char *path = zl_path_join(sb->bin, name);

	strbuf_addf(&text, "#!/bin/sh\n%s\n", body);
	if (zl_write_file_atomic(path, text.buf, text.len, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(chmod(path, 0755), 0);
	free(path);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* A fake tool that prints a captured fixture. */
static void fake_tool_cat(struct sandbox *sb, const char *name, const char *dir, const char *file)
{
	char *body = xstrfmt("exec /bin/cat '%s/devices/%s/%s'", getenv("ZL_FIXTURES_DIR"),
			     dir, file);

	fake_tool(sb, name, body);
	free(body);
}

/* An empty file standing for a device node (its kind does not matter to zlbench). */
static void node(struct sandbox *sb, const char *rel)
{
	struct strbuf err = STRBUF_INIT;
	char *path = zl_path_join(sb->dev, rel);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	if (zl_mkdir_p(path, &err))
		fail_msg("%s", err.buf);
	*slash = '/';
	if (zl_write_file_atomic(path, "", 0, &err))
		fail_msg("%s", err.buf);
	free(path);
	strbuf_release(&err);
}

static void enumerate(const char *backend, struct zl_devlist *dl)
{
	const struct zl_backend *b = zl_backend_find(backend);

	assert_non_null(b);
	assert_int_equal(zl_backend_enumerate(b, dl), 0);
	assert_non_null(dl->how);
}

static void assert_contains(const char *s, const char *part)
{
	if (!s || !strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s ? s : "(null)", part);
}

static void test_dev_root(void **state)
{
	struct sandbox *sb = *state;

	assert_string_equal(zl_dev_root(), sb->dev);
	setenv("ZL_DEV_ROOT", "", 1);
	assert_string_equal(zl_dev_root(), "/dev");
	unsetenv("ZL_DEV_ROOT");
	assert_string_equal(zl_dev_root(), "/dev");
	setenv("ZL_DEV_ROOT", sb->dev, 1);
}

static void test_not_verified(void **state)
{
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf want = STRBUF_INIT;
	(void)state;

	enumerate("cuda", &dl);
	assert_int_equal(dl.available, 0);
	assert_int_equal(dl.tool_failed, 0);
	assert_int_equal(dl.nr, 0);
	strbuf_addf(&want, "not verified: no nvidia-smi on PATH and no %s/nvidia* nodes", zl_dev_root());
	assert_string_equal(dl.how, want.buf);
	zl_devlist_release(&dl);

	enumerate("rocm", &dl);
	assert_int_equal(dl.available, 0);
	assert_contains(dl.how, "no rocm-smi on PATH; no amd-smi on PATH and no ");
	zl_devlist_release(&dl);
	strbuf_release(&want);
}

static void test_query_tool_answers(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	fake_tool_cat(sb, "nvidia-smi", "nvidia-smi-h200x2", "query-gpu-noheader-nounits.csv");
	node(sb, "nvidia0");
	node(sb, "nvidiactl");
	enumerate("cuda", &dl);
	assert_int_equal(dl.available, 1);
	assert_int_equal(dl.tool_failed, 0);
	assert_string_equal(dl.how, "nvidia-smi");
	assert_int_equal(dl.nr, 2);
	assert_string_equal(dl.v[1].uuid, "GPU-07a9c116-3155-df8f-d562-84890a359ef8");
	assert_null(dl.v[0].node);
	zl_devlist_release(&dl);

	fake_tool_cat(sb, "npu-smi", "npu-smi", "npu-smi-info_4x-910B2C_npu-smi23.0.3_ids12-15_with-processes.txt");
	enumerate("ascend", &dl);
	assert_int_equal(dl.available, 1);
	assert_string_equal(dl.how, "npu-smi");
	assert_int_equal(dl.nr, 4);
	assert_string_equal(dl.v[3].uuid, "0000:C9:00.0");
	zl_devlist_release(&dl);
}

/* The tool gets the row's argv, without a shell, and LC_ALL=C: the fake writes down what it got. */
static void test_query_argv_passed(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	struct strbuf got = STRBUF_INIT;
	char *log = zl_path_join(sb->top, "argv.txt");
	char *body = xstrfmt("printf '%%s\\n' \"$@\" \"LC_ALL=$LC_ALL\" > '%s'\n"
			     "echo '0, NVIDIA H200, GPU-x, 0:0.0, 1, 1'", log);

	fake_tool(sb, "nvidia-smi", body);
	enumerate("cuda", &dl);
	assert_int_equal(dl.nr, 1);
	assert_true(strbuf_read_file(&got, log) > 0);
	assert_string_equal(got.buf,
		"--query-gpu=index,name,uuid,pci.bus_id,memory.total,driver_version\n"
		"--format=csv,noheader,nounits\n"
		"LC_ALL=C\n");
	zl_devlist_release(&dl);
	strbuf_release(&got);
	free(body);
	free(log);
}

/* Numbered nodes only ("nvidiactl", "nvidia-uvm", "nvidia-caps" are not GPUs), in numeric order. */
static void test_dev_nodes_fallback(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;
	char *want;

	node(sb, "nvidia0");
	node(sb, "nvidia1");
	node(sb, "nvidia10");
	node(sb, "nvidia2");
	node(sb, "nvidiactl");
	node(sb, "nvidia-uvm");
	node(sb, "nvidia-uvm-tools");
	node(sb, "nvidia-caps/nvidia-cap1");
	enumerate("cuda", &dl);
	assert_int_equal(dl.available, 1);
	want = xstrfmt("%s nodes (no nvidia-smi on PATH)", sb->dev);
	assert_string_equal(dl.how, want);
	free(want);
	assert_int_equal(dl.nr, 4);
	assert_int_equal(dl.v[3].index, 3);
	assert_non_null(strstr(dl.v[2].node, "/nvidia2"));
	assert_non_null(strstr(dl.v[3].node, "/nvidia10"));
	assert_null(dl.v[0].name);
	assert_int_equal(dl.v[0].memory_mib, -1);
	zl_devlist_release(&dl);
}

/* Without its probe node, a vendor's numbered nodes do not count. */
static void test_dev_nodes_need_probe(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	node(sb, "nvidia0");
	enumerate("cuda", &dl);
	assert_int_equal(dl.available, 0);
	assert_contains(dl.how, "nodes without ");
	assert_contains(dl.how, "/nvidiactl");
	zl_devlist_release(&dl);

	/* render nodes exist for every GPU vendor: rocm needs /dev/kfd */
	node(sb, "dri/renderD128");
	node(sb, "dri/renderD129");
	node(sb, "dri/card0");
	enumerate("rocm", &dl);
	assert_int_equal(dl.available, 0);
	zl_devlist_release(&dl);
	node(sb, "kfd");
	enumerate("rocm", &dl);
	assert_int_equal(dl.available, 1);
	assert_int_equal(dl.nr, 2);
	assert_int_equal(dl.v[0].index, 0);
	assert_contains(dl.v[1].node, "dri/renderD129");
	assert_contains(dl.how, "other vendors' GPUs");
	zl_devlist_release(&dl);
}

/* davinci<N> are physical ids (here 12-15 in a container); the devices are 0-3. */
static void test_dev_nodes_ascend_and_musa(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	node(sb, "davinci12");
	node(sb, "davinci13");
	node(sb, "davinci14");
	node(sb, "davinci15");
	node(sb, "davinci_manager");
	node(sb, "devmm_svm");
	enumerate("ascend", &dl);
	assert_int_equal(dl.available, 1);
	assert_int_equal(dl.nr, 4);
	assert_int_equal(dl.v[0].index, 0);
	assert_contains(dl.v[0].node, "davinci12");
	zl_devlist_release(&dl);

	node(sb, "mtgpu.0");
	node(sb, "mtgpu.1");
	enumerate("musa", &dl);
	assert_int_equal(dl.available, 1);
	assert_int_equal(dl.nr, 2);
	assert_contains(dl.how, "no mthreads-gmi on PATH");
	zl_devlist_release(&dl);
}

static void test_tool_fails_then_nodes(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	fake_tool(sb, "nvidia-smi",
		  "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"; exit 9");
	node(sb, "nvidia0");
	node(sb, "nvidiactl");
	enumerate("cuda", &dl);
	assert_int_equal(dl.available, 1);
	assert_int_equal(dl.nr, 1);
	/* the nodes answered, but the tool's failure still says the driver is broken */
	assert_int_equal(dl.tool_failed, 1);
	assert_contains(dl.how, " nodes (nvidia-smi exited 9: NVIDIA-SMI has failed because");
	zl_devlist_release(&dl);
}

/* A failing tool's partial output is not believed, even if it would parse. */
static void test_failed_tool_output_ignored(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	fake_tool(sb, "nvidia-smi", "echo '0, NVIDIA H200, GPU-x, 0:0.0, 1, 1'; exit 15");
	enumerate("cuda", &dl);
	assert_int_equal(dl.available, 0);
	assert_int_equal(dl.tool_failed, 1);
	assert_int_equal(dl.nr, 0);
	assert_contains(dl.how, "not verified: nvidia-smi exited 15: 0, NVIDIA H200");
	zl_devlist_release(&dl);
}

static void test_tool_output_not_understood(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	fake_tool(sb, "npu-smi", "echo 'dcmi module initialize failed. ret is -8005'");
	enumerate("ascend", &dl);
	assert_int_equal(dl.available, 0);
	assert_int_equal(dl.tool_failed, 1);
	assert_contains(dl.how, "npu-smi output not understood: no devices in npu-smi output (it begins 'dcmi module initialize failed. ret is -8005')");
	zl_devlist_release(&dl);
}

/* rocm-smi missing (or failing): amd-smi list answers, duplicate uuids replaced by bus ids. */
static void test_rocm_alt_tool(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	fake_tool_cat(sb, "amd-smi", "rocm-smi", "amd-smi-list_2x-MI210_dup-uuid_rocm6.3.3.txt");
	enumerate("rocm", &dl);
	assert_int_equal(dl.available, 1);
	assert_string_equal(dl.how, "amd-smi (no rocm-smi on PATH; 2 devices share a uuid: bus ids shown instead)");
	assert_string_equal(dl.v[0].uuid, "0000:03:00.0");
	assert_string_equal(dl.v[1].uuid, "0000:83:00.0");
	zl_devlist_release(&dl);

	fake_tool(sb, "rocm-smi", "echo 'ERROR: No DRM devices available. Exiting'; exit 1");
	enumerate("rocm", &dl);
	assert_int_equal(dl.available, 1);
	assert_int_equal(dl.tool_failed, 0);
	assert_contains(dl.how, "amd-smi (rocm-smi exited 1: ERROR: No DRM devices available. Exiting;");
	zl_devlist_release(&dl);

	fake_tool_cat(sb, "rocm-smi", "rocm-smi", "rocm-smi-json_1x-RX7800XT_rocm6.2.4_pretty-printed_gpustack.json");
	enumerate("rocm", &dl);
	assert_string_equal(dl.how, "rocm-smi");
	assert_int_equal(dl.nr, 1);
	zl_devlist_release(&dl);
}

/* Partitions of one GPU share uuid and bus id: the how says they cannot be told apart. */
static void test_shared_ids_reported(void **state)
{
	struct sandbox *sb = *state;
	struct zl_devlist dl = ZL_DEVLIST_INIT;

	fake_tool(sb, "amd-smi",
		  "printf 'GPU: 0\\n    BDF: 0000:01:00.0\\n    UUID: u\\n\\n"
		  "GPU: 1\\n    BDF: 0000:01:00.0\\n    UUID: u\\n'");
	enumerate("rocm", &dl);
	assert_int_equal(dl.nr, 2);
	assert_string_equal(dl.how, "amd-smi (no rocm-smi on PATH; 2 devices share a uuid: bus ids shown instead; "
				    "2 devices still share a uuid)");
	zl_devlist_release(&dl);
}

static void test_detect_none(void **state)
{
	const struct zl_backend *b = NULL;
	struct strbuf err = STRBUF_INIT;
	struct sandbox *sb = *state;

	/* render nodes alone are any vendor's: not a detection */
	node(sb, "dri/renderD128");
	assert_int_equal(zl_backend_detect(&b, &err), -1);
	assert_null(b);
	assert_contains(err.buf, "no backend detected");
	assert_contains(err.buf, "nvidia-smi, mthreads-gmi, rocm-smi, amd-smi, npu-smi");
	assert_contains(err.buf, "pass --backend");
	assert_contains(err.buf, "cuda (nvidia, cu)");
	assert_contains(err.buf, "ascend (npu, huawei)");
	strbuf_release(&err);
}

static void test_detect_one(void **state)
{
	struct sandbox *sb = *state;
	const struct zl_backend *b = NULL;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;

	fake_tool(sb, "mthreads-gmi", "exit 0");
	assert_int_equal(zl_backend_detect(&b, &err), 0);
	assert_string_equal(b->name, "musa");
	assert_int_equal(zl_backend_present(b, &why), 1);
	assert_string_equal(why.buf, "mthreads-gmi on PATH");
	strbuf_release(&err);
	strbuf_release(&why);
}

static void test_detect_by_nodes(void **state)
{
	struct sandbox *sb = *state;
	const struct zl_backend *b = NULL;
	struct strbuf err = STRBUF_INIT;

	node(sb, "kfd");
	assert_int_equal(zl_backend_detect(&b, &err), 0);
	assert_string_equal(b->name, "rocm");
	strbuf_release(&err);
}

static void test_detect_several(void **state)
{
	struct sandbox *sb = *state;
	const struct zl_backend *b = NULL;
	struct strbuf err = STRBUF_INIT;

	fake_tool(sb, "nvidia-smi", "exit 0");
	node(sb, "davinci_manager");
	assert_int_equal(zl_backend_detect(&b, &err), -1);
	assert_null(b);
	assert_contains(err.buf, "several backends detected: cuda (nvidia-smi on PATH), ascend (");
	assert_contains(err.buf, "/davinci_manager)");
	assert_contains(err.buf, "pass --backend (choices: cuda");
	strbuf_release(&err);
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, sandbox_setup, sandbox_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_dev_root),
		SANDBOXED(test_not_verified),
		SANDBOXED(test_query_tool_answers),
		SANDBOXED(test_query_argv_passed),
		SANDBOXED(test_dev_nodes_fallback),
		SANDBOXED(test_dev_nodes_need_probe),
		SANDBOXED(test_dev_nodes_ascend_and_musa),
		SANDBOXED(test_tool_fails_then_nodes),
		SANDBOXED(test_failed_tool_output_ignored),
		SANDBOXED(test_tool_output_not_understood),
		SANDBOXED(test_rocm_alt_tool),
		SANDBOXED(test_shared_ids_reported),
		SANDBOXED(test_detect_none),
		SANDBOXED(test_detect_one),
		SANDBOXED(test_detect_by_nodes),
		SANDBOXED(test_detect_several),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
