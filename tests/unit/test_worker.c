/* worker.c: start modes, the identity's start object, exit records, and a run's hand-over to a (fake) worker. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "zlbench/backend.h"
#include "zlbench/fsutil.h"
#include "zlbench/runload.h"
#include "zlbench/strbuf.h"
#include "zlbench/util.h"
#include "zlbench/worker.h"

static void test_start_modes(void **state)
{
	const struct zl_backend *b;
	struct strbuf err = STRBUF_INIT;
	enum zl_start_mode m = ZL_START_FORK;

	(void)state;
	assert_int_equal(zl_start_mode_parse("worker", "--start", zl_backend_find("cuda"), &m, &err), 0);
	assert_int_equal(m, ZL_START_WORKER);
	assert_int_equal(zl_start_mode_parse("fresh", "--start", NULL, &m, &err), 0);
	assert_int_equal(m, ZL_START_FRESH);
	assert_string_equal(zl_start_mode_name(ZL_START_WORKER), "worker");
	/* no row offers a fork server: FlagGems initialises the device at import on every vendor */
	for (b = zl_backend_table; b->name; b++) {
		strbuf_reset(&err);
		assert_int_equal(zl_start_mode_parse("fork", "ZL_START", b, &m, &err), -1);
		assert_non_null(strstr(err.buf, "ZL_START fork is not offered on backend"));
		assert_non_null(strstr(err.buf, b->name));
	}
	strbuf_reset(&err);
	assert_int_equal(zl_start_mode_parse("Worker", "--start", NULL, &m, &err), -1);
	assert_string_equal(err.buf, "invalid value 'Worker' for --start: choose fresh or worker");
	strbuf_release(&err);
}

static char *json_text(cJSON *o)
{
	struct strbuf sb = STRBUF_INIT;

	assert_non_null(o);
	zl_json_canonical(&sb, o);
	cJSON_Delete(o);
	return strbuf_detach(&sb, NULL);
}

static void test_start_json(void **state)
{
	struct zl_worker_session ws = ZL_WORKER_SESSION_INIT;
	char *t;

	(void)state;
	t = json_text(zl_worker_start_json(NULL, NULL));
	assert_string_equal(t, "{\"mode\": \"fresh\", \"ops_before\": 0, \"worker_pid\": null}");
	free(t);
	t = json_text(zl_worker_start_json(NULL, "refused"));
	assert_string_equal(t, "{\"mode\": \"fresh\", \"ops_before\": 0, \"worker_pid\": null, "
			       "\"fallback_reason\": \"refused\"}");
	free(t);
	ws.pid = 4242;
	ws.ops_before = 3;
	ws.reset_before = cJSON_CreateStringArray((const char *const[]){ "torch default dtype" }, 1);
	ws.retire = xstrdup("flag_gems enabled: cannot be reset");
	t = json_text(zl_worker_start_json(&ws, NULL));
	assert_string_equal(t, "{\"mode\": \"reused\", \"ops_before\": 3, \"worker_pid\": 4242, "
			       "\"reset\": [\"torch default dtype\"], \"retired_after\": \"flag_gems enabled: cannot be reset\"}");
	free(t);
	zl_worker_session_release(&ws);
}

static void test_exit_records(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = NULL, *sock;
	int raw = -1;

	(void)state;
	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-worker-", &dir, &err), 0);
	sock = zl_path_join(dir, "0.1.sock");
	assert_int_equal(zl_worker_exit_status(sock, 77, 0.05, &raw), -1);
	assert_int_equal(zl_worker_record_exit(dir, 77, W_EXITCODE(0, SIGSEGV), &err), 0);
	assert_int_equal(zl_worker_exit_status(sock, 77, 0, &raw), 0);
	assert_true(WIFSIGNALED(raw) && WTERMSIG(raw) == SIGSEGV);
	assert_int_equal(zl_remove_tree(dir, &err), 0);
	free(sock);
	free(dir);
	strbuf_release(&err);
}

static void test_session_events(void **state)
{
	struct zl_worker_session ws = ZL_WORKER_SESSION_INIT;
	const char *a = "{\"event\":\"exit\",\"status\":1,\"reset\":[\"python root logger\"],";
	const char *b = "\"retire\":\"gone\",\"notes\":[\"threads\"]}\n";
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ws.ctl_fd = sv[0];
	/* an event split across reads is read whole */
	assert_int_equal(zl_write_all(sv[1], a, strlen(a)), 0);
	assert_int_equal(zl_worker_session_read(&ws), 0);
	assert_int_equal(zl_write_all(sv[1], b, strlen(b)), 0);
	assert_int_equal(zl_worker_session_read(&ws), 1);
	assert_int_equal(ws.status, 1);
	assert_string_equal(ws.retire, "gone");
	assert_string_equal(cJSON_GetArrayItem(ws.reset_after, 0)->valuestring, "python root logger");
	assert_int_equal((int)ws.notes.nr, 1);
	zl_worker_session_release(&ws);
	/* the worker died: the connection ends without the exit event */
	ws = (struct zl_worker_session)ZL_WORKER_SESSION_INIT;
	ws.ctl_fd = sv[1];
	close(sv[0]);
	assert_int_equal(zl_worker_session_read(&ws), -1);
	zl_worker_session_release(&ws);
}

/*
 * A fake worker in a child: accepts one connection, checks the request and the attached
 * pipe, answers "start", writes to the op's output and answers "exit", or refuses.
 */
static void fake_worker(int listen_fd, int refuse)
{
	struct strbuf req = STRBUF_INIT;
	char buf[65536], ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg;
	struct cmsghdr *cm;
	int conn = accept(listen_fd, NULL, NULL), out = -1;
	ssize_t n;
	cJSON *doc;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	if (conn < 0 || (n = recvmsg(conn, &msg, 0)) <= 0)
		_exit(10);
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		_exit(11);
	memcpy(&out, CMSG_DATA(cm), sizeof(int));
	strbuf_add(&req, buf, (size_t)n);
	while ((n = read(conn, buf, sizeof(buf))) > 0)
		strbuf_add(&req, buf, (size_t)n);
	doc = cJSON_Parse(req.buf);
	if (!doc || strcmp(zl_json_path_string(doc, "cwd"), "/fg") ||
	    strcmp(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "argv"), 2)->valuestring, "pytest"))
		_exit(12);
	if (refuse) {
		const char *r = "{\"event\":\"refused\",\"reason\":\"the run's environment differs\"}\n";
		_exit(zl_write_all(conn, r, strlen(r)) ? 13 : 0);
	}
	{
		const char *s = "{\"event\":\"start\",\"pid\":4321,\"ops_before\":2,\"reset\":[]}\n";
		const char *e = "{\"event\":\"exit\",\"status\":0,\"reset\":[],\"retire\":null,\"notes\":[]}\n";

		if (zl_write_all(conn, s, strlen(s)) || zl_write_all(out, "pytest output\n", 14))
			_exit(14);
		close(out);
		_exit(zl_write_all(conn, e, strlen(e)) ? 15 : 0);
	}
}

static void submit_once(int refuse)
{
	struct zl_worker_session ws = ZL_WORKER_SESSION_INIT;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct sockaddr_un sa;
	char *dir = NULL, *path;
	int fd, status = 0;
	pid_t pid;

	assert_int_equal(zl_mkdtemp_in("/tmp", "zl-test-worker-", &dir, &err), 0);
	path = zl_path_join(dir, "w.sock");
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		fake_worker(fd, refuse);
	close(fd);
	strvec_pushv(&argv, (const char *[]){ "/usr/bin/python3", "-m", "pytest", "benchmark/test_abs.py", NULL });
	strvec_push(&env, "ZL_RUN_DIR=/runs/abs");
	if (refuse) {
		assert_int_equal(zl_worker_submit(path, &argv, &env, "/fg", 10, &ws, &err), -1);
		assert_string_equal(err.buf, "the worker refused the op: the run's environment differs");
	} else {
		assert_int_equal(zl_worker_submit(path, &argv, &env, "/fg", 10, &ws, &err), 0);
		assert_int_equal((int)ws.pid, 4321);
		assert_int_equal(ws.ops_before, 2);
		assert_int_equal(strbuf_read_fd(&out, ws.out_fd), 14);
		assert_string_equal(out.buf, "pytest output\n");
		while (zl_worker_session_read(&ws) == 0)
			;
		assert_true(ws.exited);
		assert_int_equal(ws.status, 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	zl_worker_session_release(&ws);
	strvec_clear(&argv);
	strvec_clear(&env);
	assert_int_equal(zl_remove_tree(dir, &err), 0);
	strbuf_release(&err);
	strbuf_release(&out);
	free(path);
	free(dir);
}

static void test_submit(void **state)
{
	(void)state;
	submit_once(0);
	submit_once(1);
}

static void test_submit_unreachable(void **state)
{
	struct zl_worker_session ws = ZL_WORKER_SESSION_INIT;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	strvec_pushv(&argv, (const char *[]){ "/usr/bin/python3", "-m", "pytest", NULL });
	assert_int_equal(zl_worker_submit("/nonexistent/w.sock", &argv, &env, "/fg", 1, &ws, &err), -1);
	assert_non_null(strstr(err.buf, "cannot reach the worker at '/nonexistent/w.sock'"));
	assert_int_equal(ws.ctl_fd, -1);
	assert_int_equal(ws.out_fd, -1);
	zl_worker_session_release(&ws);
	strvec_clear(&argv);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_modes),
		cmocka_unit_test(test_start_json),
		cmocka_unit_test(test_exit_records),
		cmocka_unit_test(test_session_events),
		cmocka_unit_test(test_submit),
		cmocka_unit_test(test_submit_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
