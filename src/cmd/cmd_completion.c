/*
 * zlbench completion: bash and zsh completion scripts.
 *
 * Everything in the script comes from the binary that prints it: the commands
 * from main.c's table, each command's options from its row's option table (and the
 * run settings' rows), the backend names from the backend table. Operator names
 * depend on the FlagGems checkout, so the script asks `zlbench completion --list-ops`
 * for them while completing (a hidden option).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/options.h"
#include "zlbench/resolve.h"
#include "zlbench/settings.h"
#include "zlbench/util.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* What the word after an option (or a command's operand) completes to. */
enum value_kind { VALUES_FILES, VALUES_DIRS, VALUES_WORDS, VALUES_BACKENDS, VALUES_OPS, VALUES_OP_LIST, VALUES_COMMANDS };

static const struct {
	const char *option;        /* without "--" */
	enum value_kind kind;
	const char *words;         /* VALUES_WORDS */
} option_values[] = {
	{ "backend", VALUES_BACKENDS, NULL },
	{ "op", VALUES_OPS, NULL },
	{ "ops", VALUES_OP_LIST, NULL },          /* batch: "mm,bmm": the name after the last comma */
	{ "warmup-ops", VALUES_OP_LIST, NULL },
	{ "level", VALUES_WORDS, "core comprehensive" },
	{ "shape-mode", VALUES_WORDS, "file upstream" },
	{ "flaggems-dir", VALUES_DIRS, NULL },
	{ "out", VALUES_DIRS, NULL },
	{ "replay-from", VALUES_DIRS, NULL },
	/* any other option that takes a value completes file names */
};

static const struct {
	const char *command;
	enum value_kind kind;
	const char *words;
} operands[] = {
	{ "help", VALUES_COMMANDS, NULL },
	{ "completion", VALUES_WORDS, "bash zsh" },
	/* any other command's operands complete file names */
};

/* The global options (before the command) as one line of words. */
static void global_words(struct strbuf *sb)
{
	const struct zl_option *o;

	for (o = zl_global_option_rows(); o->type != ZL_OPT_END; o++)
		if (o->long_name && !(o->flags & ZL_OPT_HIDDEN))
			strbuf_addf(sb, "--%s ", o->long_name);
	strbuf_addstr(sb, "--help");
}

static void backend_names(FILE *out)
{
	const struct zl_backend *b;

	for (b = zl_backend_table; b->name; b++)
		fprintf(out, "%s%s", b == zl_backend_table ? "" : " ", b->name);
}

static void command_names(FILE *out)
{
	const struct zl_command *const *c;
	const char *sep = "";

	for (c = zl_commands(); *c; c++)
		if (!((*c)->flags & ZL_CMD_HIDDEN)) {
			fprintf(out, "%s%s", sep, (*c)->name);
			sep = " ";
		}
}

/* One command's options from a table: every row a word parses, but hidden ones and the settings it refuses. */
static void add_options(const struct zl_command *c, const struct zl_option *o, struct strbuf *line,
			struct strvec *with_arg)
{
	for (; o && o->type != ZL_OPT_END; o++) {
		if (o->type == ZL_OPT_GROUP || !o->long_name || (o->flags & (ZL_OPT_HIDDEN | ZL_OPT_DOC_ONLY)))
			continue;
		if (zl_settings_option_has(o, c->refused_settings))
			continue;
		strbuf_addf(line, "%s--%s", line->len ? " " : "", o->long_name);
		if (zl_option_takes_value(o) && strvec_find(with_arg, o->long_name) < 0)
			strvec_push(with_arg, o->long_name);
	}
}

/* Per-command option lists (in the order of zl_commands(), hidden ones left out) and the valued options. */
static void collect(struct strvec *per_command, struct strvec *with_arg)
{
	const struct zl_command *const *c;
	struct zl_settings s;

	zl_settings_init(&s);
	for (c = zl_commands(); *c; c++) {
		struct strbuf line = STRBUF_INIT;

		if ((*c)->flags & ZL_CMD_HIDDEN)
			continue;
		add_options(*c, (*c)->options, &line, with_arg);
		if ((*c)->flags & ZL_CMD_SETTINGS)
			add_options(*c, zl_settings_options(&s), &line, with_arg);
		strbuf_addf(&line, "%s--help", line.len ? " " : "");
		strvec_push(per_command, line.buf);
		strbuf_release(&line);
	}
	zl_settings_release(&s);
}

/* The shell statement that completes one kind of value ($cur is the word). */
static void bash_values(FILE *out, enum value_kind kind, const char *words)
{
	switch (kind) {
	case VALUES_WORDS:
		fprintf(out, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", words);
		break;
	case VALUES_BACKENDS:
		fprintf(out, "COMPREPLY=($(compgen -W \"$_zlbench_backends\" -- \"$cur\"))");
		break;
	case VALUES_COMMANDS:
		fprintf(out, "COMPREPLY=($(compgen -W \"$_zlbench_commands\" -- \"$cur\"))");
		break;
	case VALUES_OPS:
		fprintf(out, "COMPREPLY=($(compgen -W \"$(_zlbench_ops)\" -- \"$cur\"))");
		break;
	case VALUES_OP_LIST:
		/* the names before the last comma stay as typed */
		fprintf(out, "local pre=\"\"; [[ $cur == *,* ]] && pre=\"${cur%%,*},\"; "
			"COMPREPLY=($(compgen -P \"$pre\" -W \"$(_zlbench_ops)\" -- \"${cur##*,}\"))");
		break;
	case VALUES_DIRS:
		fprintf(out, "COMPREPLY=($(compgen -d -- \"$cur\"))");
		break;
	case VALUES_FILES:
		fprintf(out, "COMPREPLY=($(compgen -f -- \"$cur\"))");
		break;
	}
}

/* The bash script's header and its word lists: commands, backends, global options, options per command. */
static void bash_variables(FILE *out, const struct strvec *per_command, const struct strvec *with_arg)
{
	const struct zl_command *const *c;
	struct strbuf global = STRBUF_INIT;
	size_t i;

	global_words(&global);
	fprintf(out, "# bash completion for zlbench %s (printed by `zlbench completion bash`)\n"
		"# Load it with: source <(zlbench completion bash)\n\n", ZL_VERSION_STRING);
	fprintf(out, "_zlbench_commands=\"");
	command_names(out);
	fprintf(out, "\"\n_zlbench_backends=\"");
	backend_names(out);
	fprintf(out, "\"\n_zlbench_global=\"%s\"\n", global.buf);
	fprintf(out, "# options that take a value\n_zlbench_valued=\" ");
	for (i = 0; i < with_arg->nr; i++)
		fprintf(out, "--%s ", with_arg->v[i]);
	fprintf(out, "\"\n");
	for (c = zl_commands(), i = 0; *c; c++)
		if (!((*c)->flags & ZL_CMD_HIDDEN))
			fprintf(out, "_zlbench_opts_%s=\"%s\"\n", (*c)->name, per_command->v[i++]);
	strbuf_release(&global);
}

/* The bash function _zlbench_ops: the operators of the checkout the command line names. */
static void bash_ops_function(FILE *out)
{
	fprintf(out,
		"\n# Operators of the FlagGems checkout named on the line (else $FLAGGEMS_DIR, else .).\n"
		"_zlbench_ops() {\n"
		"\tlocal dir=\"${FLAGGEMS_DIR:-.}\" i w\n"
		"\tfor ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do\n"
		"\t\tw=\"${COMP_WORDS[i]}\"\n"
		"\t\tif [[ $w == --flaggems-dir ]]; then\n"
		"\t\t\tif [[ ${COMP_WORDS[i+1]} == = ]]; then dir=\"${COMP_WORDS[i+2]}\"; else dir=\"${COMP_WORDS[i+1]}\"; fi\n"
		"\t\telif [[ $w == --flaggems-dir=* ]]; then\n"
		"\t\t\tdir=\"${w#--flaggems-dir=}\"\n"
		"\t\tfi\n"
		"\tdone\n"
		"\tdir=\"${dir/#\\~/$HOME}\"\n"
		"\t\"${COMP_WORDS[0]}\" completion --list-ops --flaggems-dir \"$dir\" 2>/dev/null\n"
		"}\n");
}

/* The bash function _zlbench: a case per valued option, then per command's operand. */
static void bash_main_function(FILE *out)
{
	size_t i;

	fprintf(out,
		"\n"
		"_zlbench() {\n"
		"\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=\"\" i opts\n"
		"\tCOMPREPLY=()\n"
		"\t# --opt=value: bash splits at '='\n"
		"\tif [[ $cur == = ]]; then cur=\"\"; elif [[ $prev == = ]]; then prev=\"${COMP_WORDS[COMP_CWORD-2]}\"; fi\n"
		"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		"\t\tcase \"${COMP_WORDS[i]}\" in\n"
		"\t\t--) [[ -n $cmd ]] && { COMPREPLY=($(compgen -f -- \"$cur\")); return 0; } ;;\n"
		"\t\t-*|=) ;;\n"
		"\t\t*) if [[ -z $cmd ]]; then cmd=\"${COMP_WORDS[i]}\"; fi ;;\n"
		"\t\tesac\n"
		"\tdone\n"
		"\tif [[ -z $cmd ]]; then\n"
		"\t\tif [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$_zlbench_global\" -- \"$cur\"));\n"
		"\t\telse COMPREPLY=($(compgen -W \"$_zlbench_commands\" -- \"$cur\")); fi\n"
		"\t\treturn 0\n"
		"\tfi\n"
		"\tif [[ $_zlbench_valued == *\" $prev \"* ]]; then\n"
		"\t\tcase \"$prev\" in\n");
	for (i = 0; i < ZL_ARRAY_SIZE(option_values); i++) {
		fprintf(out, "\t\t--%s) ", option_values[i].option);
		bash_values(out, option_values[i].kind, option_values[i].words);
		fprintf(out, " ;;\n");
	}
	fprintf(out, "\t\t*) ");
	bash_values(out, VALUES_FILES, NULL);
	fprintf(out, " ;;\n\t\tesac\n\t\treturn 0\n\tfi\n"
		"\tif [[ $cur == -* ]]; then\n"
		"\t\topts=\"_zlbench_opts_${cmd}\"\n"
		"\t\tCOMPREPLY=($(compgen -W \"${!opts}\" -- \"$cur\"))\n"
		"\t\treturn 0\n"
		"\tfi\n"
		"\tcase \"$cmd\" in\n");
	for (i = 0; i < ZL_ARRAY_SIZE(operands); i++) {
		fprintf(out, "\t%s) ", operands[i].command);
		bash_values(out, operands[i].kind, operands[i].words);
		fprintf(out, " ;;\n");
	}
	fprintf(out, "\t*) ");
	bash_values(out, VALUES_FILES, NULL);
	fprintf(out, " ;;\n\tesac\n\treturn 0\n}\n\ncomplete -F _zlbench zlbench\n");
}

static void print_bash(FILE *out, const struct strvec *per_command, const struct strvec *with_arg)
{
	bash_variables(out, per_command, with_arg);
	bash_ops_function(out);
	bash_main_function(out);
}

static void zsh_values(FILE *out, enum value_kind kind, const char *words)
{
	switch (kind) {
	case VALUES_WORDS:
		fprintf(out, "compadd -- %s", words);
		break;
	case VALUES_BACKENDS:
		fprintf(out, "compadd -- $_zlbench_backends");
		break;
	case VALUES_COMMANDS:
		fprintf(out, "compadd -- $_zlbench_commands");
		break;
	case VALUES_OPS:
		fprintf(out, "compadd -- ${(f)\"$(_zlbench_ops)\"}");
		break;
	case VALUES_OP_LIST:
		fprintf(out, "compset -P '*,'; compadd -- ${(f)\"$(_zlbench_ops)\"}");
		break;
	case VALUES_DIRS:
		fprintf(out, "_files -/");
		break;
	case VALUES_FILES:
		fprintf(out, "_files");
		break;
	}
}

/* The zsh script's header and its word lists: commands, backends, global options, options per command. */
static void zsh_variables(FILE *out, const struct strvec *per_command, const struct strvec *with_arg)
{
	const struct zl_command *const *c;
	struct strbuf global = STRBUF_INIT;
	size_t i;

	global_words(&global);
	fprintf(out, "#compdef zlbench\n"
		"# zsh completion for zlbench %s (printed by `zlbench completion zsh`)\n"
		"# Save it as _zlbench in a directory of $fpath, or: source <(zlbench completion zsh)\n\n",
		ZL_VERSION_STRING);
	fprintf(out, "_zlbench_commands=(");
	command_names(out);
	fprintf(out, ")\n_zlbench_backends=(");
	backend_names(out);
	fprintf(out, ")\n_zlbench_global=(%s)\n_zlbench_valued=(", global.buf);
	for (i = 0; i < with_arg->nr; i++)
		fprintf(out, "%s--%s", i ? " " : "", with_arg->v[i]);
	fprintf(out, ")\ntypeset -gA _zlbench_opts\n");
	for (c = zl_commands(), i = 0; *c; c++)
		if (!((*c)->flags & ZL_CMD_HIDDEN))
			fprintf(out, "_zlbench_opts[%s]=\"%s\"\n", (*c)->name, per_command->v[i++]);
	strbuf_release(&global);
}

/* The zsh function _zlbench_ops: the operators of the checkout the command line names. */
static void zsh_ops_function(FILE *out)
{
	fprintf(out,
		"\n# Operators of the FlagGems checkout named on the line (else $FLAGGEMS_DIR, else .).\n"
		"_zlbench_ops() {\n"
		"  local dir=${FLAGGEMS_DIR:-.} i\n"
		"  for (( i = 2; i <= $#words; i++ )); do\n"
		"    if [[ ${words[i]} == --flaggems-dir ]]; then\n"
		"      dir=${words[i+1]}\n"
		"    elif [[ ${words[i]} == --flaggems-dir=* ]]; then\n"
		"      dir=${words[i]#--flaggems-dir=}\n"
		"    fi\n"
		"  done\n"
		"  dir=${~dir}\n"
		"  ${words[1]} completion --list-ops --flaggems-dir $dir 2>/dev/null\n"
		"}\n");
}

/* The zsh function _zlbench: a case per valued option, then per command's operand. */
static void zsh_main_function(FILE *out)
{
	size_t i;

	fprintf(out,
		"\n"
		"_zlbench() {\n"
		"  local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd= i\n"
		"  for (( i = 2; i < CURRENT; i++ )); do\n"
		"    case ${words[i]} in\n"
		"    --) [[ -n $cmd ]] && { _files; return; } ;;\n"
		"    -*) ;;\n"
		"    *) [[ -z $cmd ]] && cmd=${words[i]} ;;\n"
		"    esac\n"
		"  done\n"
		"  if [[ -z $cmd ]]; then\n"
		"    if [[ $cur == -* ]]; then compadd -- $_zlbench_global; else compadd -- $_zlbench_commands; fi\n"
		"    return\n"
		"  fi\n"
		"  if (( ${_zlbench_valued[(Ie)$prev]} )); then\n"
		"    case $prev in\n");
	for (i = 0; i < ZL_ARRAY_SIZE(option_values); i++) {
		fprintf(out, "    --%s) ", option_values[i].option);
		zsh_values(out, option_values[i].kind, option_values[i].words);
		fprintf(out, " ;;\n");
	}
	fprintf(out, "    *) ");
	zsh_values(out, VALUES_FILES, NULL);
	fprintf(out, " ;;\n    esac\n    return\n  fi\n"
		"  if [[ $cur == -* ]]; then\n"
		"    compadd -- ${=_zlbench_opts[$cmd]}\n"
		"    return\n"
		"  fi\n"
		"  case $cmd in\n");
	for (i = 0; i < ZL_ARRAY_SIZE(operands); i++) {
		fprintf(out, "  %s) ", operands[i].command);
		zsh_values(out, operands[i].kind, operands[i].words);
		fprintf(out, " ;;\n");
	}
	fprintf(out, "  *) ");
	zsh_values(out, VALUES_FILES, NULL);
	fprintf(out, " ;;\n  esac\n}\n\n"
		"if [[ $funcstack[1] == _zlbench ]]; then\n"
		"  _zlbench \"$@\"\n"
		"else\n"
		"  compdef _zlbench zlbench\n"
		"fi\n");
}

static void print_zsh(FILE *out, const struct strvec *per_command, const struct strvec *with_arg)
{
	zsh_variables(out, per_command, with_arg);
	zsh_ops_function(out);
	zsh_main_function(out);
}

static const struct {
	const char *shell;
	void (*print)(FILE *out, const struct strvec *per_command, const struct strvec *with_arg);
} shells[] = {
	{ "bash", print_bash },
	{ "zsh", print_zsh },
};

static int want_ops;
static const char *ops_dir;

static const struct zl_option completion_options[] = {
	{ .type = ZL_OPT_FLAG, .long_name = "help", .help = "this text; completion takes no other option",
	  .flags = ZL_OPT_DOC_ONLY },
	/* hidden: the operators of a checkout, one per line, for the scripts */
	{ .type = ZL_OPT_FLAG, .long_name = "list-ops", .value = &want_ops, .defval = 1, .flags = ZL_OPT_HIDDEN },
	{ .type = ZL_OPT_STRING, .long_name = "flaggems-dir", .value = &ops_dir, .argh = "DIR", .env = "FLAGGEMS_DIR",
	  .flags = ZL_OPT_HIDDEN },
	ZL_OPT_END_ROW,
};

static int list_ops(void)
{
	struct strvec ops = STRVEC_INIT;
	size_t i;

	zl_list_ops(ops_dir && *ops_dir ? ops_dir : ".", &ops);
	for (i = 0; i < ops.nr; i++)
		printf("%s\n", ops.v[i]);
	strvec_clear(&ops);
	return ZL_EXIT_OK;
}

static int cmd_completion(struct zl_cmd_ctx *ctx)
{
	struct strvec per_command = STRVEC_INIT, with_arg = STRVEC_INIT;
	size_t i;
	int code = ZL_EXIT_USAGE;

	if (want_ops)
		return list_ops();
	if (ctx->args.nr != 1) {
		zl_print_error("name one shell: zlbench completion bash, or zlbench completion zsh");
		return ZL_EXIT_USAGE;
	}
	for (i = 0; i < ZL_ARRAY_SIZE(shells); i++) {
		if (strcmp(shells[i].shell, ctx->args.v[0]))
			continue;
		collect(&per_command, &with_arg);
		shells[i].print(stdout, &per_command, &with_arg);
		code = ZL_EXIT_OK;
		break;
	}
	if (code)
		zl_print_error("unknown shell '%s': choose bash or zsh", ctx->args.v[0]);
	strvec_clear(&per_command);
	strvec_clear(&with_arg);
	return code;
}

const struct zl_command zl_cmd_completion = {
	.name = "completion",
	.fn = cmd_completion,
	.flags = ZL_CMD_OPERANDS,
	.options = completion_options,
	.summary = "print a bash or zsh completion script",
	.usage = "(bash | zsh)",
	.description =
		"Prints a completion script for bash or zsh on stdout. It completes the commands, each\n"
		"command's options (as its --help lists them), backend names, the values of --level and\n"
		"of --shape-mode, directories for --flaggems-dir, --out and --replay-from, and operator\n"
		"names for --op and for each name of batch's --ops and --warmup-ops lists: those of the\n"
		"FlagGems checkout that --flaggems-dir names on the line being completed (else\n"
		"$FLAGGEMS_DIR, else the current directory).\n",
	.notes =
		"Environment: FLAGGEMS_DIR (where --op and batch's --ops look for operators while completing).\n\n"
		"Exit codes: 0 printed, 2 usage error.\n\n"
		"Examples:\n"
		"  source <(zlbench completion bash)\n"
		"  zlbench completion bash > ~/.local/share/bash-completion/completions/zlbench\n"
		"  zlbench completion zsh > \"${fpath[1]}/_zlbench\"   # then: autoload -U compinit && compinit\n",
};
