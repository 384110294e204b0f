/*
 * zlbench completion: bash and zsh completion scripts.
 *
 * Everything in the script comes from the binary that prints it: the commands
 * from main.c's table, each command's options from its own --help text, the
 * backend names from the backend table. Operator names depend on the FlagGems
 * checkout, so the script asks `zlbench completion --list-ops` for them while
 * completing (a hidden option).
 */
#include <ctype.h>
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

/*
 * Run settings a command's --help lists but that it refuses (the settings table's flags):
 * a batch sets those that name one run per operator.
 */
static const struct {
	const char *command;
	unsigned settings;         /* ZL_SETF_* */
} refused[] = {
	{ "batch", ZL_SETF_TARGET },
};

/* "--flag" of every setting with any of flags, into no. */
static void refused_flags(unsigned flags, struct strvec *no)
{
	size_t i;

	for (i = 0; i < ZL_SET__COUNT; i++)
		if ((zl_setting_defs[i].flags & flags) && zl_setting_defs[i].flag)
			strvec_pushf(no, "--%s", zl_setting_defs[i].flag);
}

/* Global options: main.c parses these before the command. */
static const char global_options[] = "--version --quiet --verbose --help";

void help_completion(FILE *out)
{
	fprintf(out,
		"usage: zlbench completion (bash | zsh)\n\n"
		"Prints a completion script for bash or zsh on stdout. It completes the commands, each\n"
		"command's options (as its --help lists them), backend names, the values of --level and\n"
		"of --shape-mode, directories for --flaggems-dir, --out and --replay-from, and operator\n"
		"names for --op and for each name of batch's --ops and --warmup-ops lists: those of the\n"
		"FlagGems checkout that --flaggems-dir names on the line being completed (else\n"
		"$FLAGGEMS_DIR, else the current directory).\n\n"
		"Options:\n"
		"  --help    this text; completion takes no other option\n\n"
		"Environment: FLAGGEMS_DIR (where --op and batch's --ops look for operators while completing).\n\n"
		"Exit codes: 0 printed, 2 usage error.\n\n"
		"Examples:\n"
		"  source <(zlbench completion bash)\n"
		"  zlbench completion bash > ~/.local/share/bash-completion/completions/zlbench\n"
		"  zlbench completion zsh > \"${fpath[1]}/_zlbench\"   # then: autoload -U compinit && compinit\n");
}

/* ---- options from help text ----------------------------------------------------- */

static int opt_char(int c)
{
	return islower(c) || isdigit(c) || c == '-';
}

/*
 * "--name ARG" (or "--name=ARG"): an upper-case word right after the option is its
 * argument, as every help text writes it ("--out DIR", "[--backend B]").
 */
static int shows_argument(const char *p)
{
	const char *q;

	if (*p != ' ' && *p != '=')
		return 0;
	q = p + 1;
	if (!isupper((unsigned char)*q))
		return 0;
	while (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_')
		q++;
	return !islower((unsigned char)*q);
}

/* Scan one line of help; a lone "--" ends what belongs to zlbench (pytest's arguments follow). */
static void scan_line(const char *line, size_t len, struct strvec *opts, struct strvec *with_arg)
{
	size_t i, n;

	for (i = 0; i + 1 < len; i++) {
		const char *p = line + i;
		char *name;

		if (p[0] != '-' || p[1] != '-' || (i && (isalnum((unsigned char)p[-1]) || p[-1] == '-')))
			continue;
		if (i + 2 == len || !opt_char((unsigned char)p[2]))
			return; /* "-- <pytest args>" */
		for (n = 0; i + 2 + n < len && opt_char((unsigned char)p[2 + n]); n++)
			;
		/* "--shape_file" is FlagGems' option named in prose, not one of ours */
		if (!islower((unsigned char)p[2]) || (i + 2 + n < len && (p[2 + n] == '_' || isalnum((unsigned char)p[2 + n])))) {
			i += 1 + n;
			continue;
		}
		name = xstrfmt("--%.*s", (int)n, p + 2);
		if (strvec_find(opts, name) < 0)
			strvec_push(opts, name);
		if (i + 2 + n < len && shows_argument(p + 2 + n) && strvec_find(with_arg, name + 2) < 0)
			strvec_push(with_arg, name + 2);
		free(name);
		i += 1 + n;
	}
}

/*
 * The options a command's --help names, in order of first mention, and --help itself.
 * Whether one takes a value is read from its option row ("  --out DIR  ...") when it
 * has one, else from the usage block ("--ingest RUN_DIR..." is a flag with operands).
 */
static int command_options(const struct zl_command *c, struct strvec *opts, struct strvec *with_arg)
{
	char *text = NULL;
	size_t size = 0, i;
	FILE *mem = open_memstream(&text, &size);
	struct strvec row_opts = STRVEC_INIT, row_valued = STRVEC_INIT, usage_valued = STRVEC_INIT;
	const char *p;
	int in_usage = 0;

	if (!mem)
		return -1;
	zl_print_command_help(c, mem);
	if (fclose(mem)) {
		free(text);
		return -1;
	}
	for (p = text; p && *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		size_t indent = strspn(p, " ");

		/* the usage block (up to a blank line) and option rows; prose and examples name other commands' options */
		if (zl_starts_with(p, "usage:"))
			in_usage = 1;
		else if (indent == len)
			in_usage = 0;
		if (indent < len && p[indent] == '-') {
			struct strvec ignored = STRVEC_INIT;

			scan_line(p, len, &row_opts, &row_valued);
			scan_line(p, len, opts, &ignored);
			strvec_clear(&ignored);
		} else if (in_usage) {
			scan_line(p, len, opts, &usage_valued);
		}
		p += len + (nl ? 1 : 0);
	}
	for (i = 0; i < opts->nr; i++) {
		const char *name = opts->v[i] + 2;
		int valued = strvec_find(&row_opts, opts->v[i]) >= 0 ? strvec_find(&row_valued, name) >= 0
								     : strvec_find(&usage_valued, name) >= 0;

		if (valued && strvec_find(with_arg, name) < 0)
			strvec_push(with_arg, name);
	}
	if (strvec_find(opts, "--help") < 0)
		strvec_push(opts, "--help");
	strvec_clear(&row_opts);
	strvec_clear(&row_valued);
	strvec_clear(&usage_valued);
	free(text);
	return 0;
}

/* ---- the scripts ------------------------------------------------------------------- */

static void backend_names(FILE *out)
{
	const struct zl_backend *b;

	for (b = zl_backend_table; b->name; b++)
		fprintf(out, "%s%s", b == zl_backend_table ? "" : " ", b->name);
}

static void command_names(FILE *out)
{
	const struct zl_command *c;

	for (c = zl_commands(); c->name; c++)
		fprintf(out, "%s%s", c == zl_commands() ? "" : " ", c->name);
}

/* Per-command option lists and the options that take values; -1 when help text cannot be read. */
static int collect(struct strvec *per_command, struct strvec *with_arg)
{
	const struct zl_command *c;

	for (c = zl_commands(); c->name; c++) {
		struct strvec opts = STRVEC_INIT, no = STRVEC_INIT;
		struct strbuf line = STRBUF_INIT;
		size_t i;

		if (command_options(c, &opts, with_arg)) {
			strvec_clear(&opts);
			return -1;
		}
		for (i = 0; i < ZL_ARRAY_SIZE(refused); i++)
			if (!strcmp(refused[i].command, c->name))
				refused_flags(refused[i].settings, &no);
		for (i = 0; i < opts.nr; i++)
			if (strvec_find(&no, opts.v[i]) < 0)
				strbuf_addf(&line, "%s%s", line.len ? " " : "", opts.v[i]);
		strvec_push(per_command, line.buf);
		strbuf_release(&line);
		strvec_clear(&opts);
		strvec_clear(&no);
	}
	return 0;
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

static void print_bash(FILE *out, const struct strvec *per_command, const struct strvec *with_arg)
{
	const struct zl_command *c;
	size_t i;

	fprintf(out, "# bash completion for zlbench %s (printed by `zlbench completion bash`)\n"
		"# Load it with: source <(zlbench completion bash)\n\n", ZL_VERSION_STRING);
	fprintf(out, "_zlbench_commands=\"");
	command_names(out);
	fprintf(out, "\"\n_zlbench_backends=\"");
	backend_names(out);
	fprintf(out, "\"\n_zlbench_global=\"%s\"\n", global_options);
	fprintf(out, "# options that take a value\n_zlbench_valued=\" ");
	for (i = 0; i < with_arg->nr; i++)
		fprintf(out, "--%s ", with_arg->v[i]);
	fprintf(out, "\"\n");
	for (c = zl_commands(), i = 0; c->name; c++, i++)
		fprintf(out, "_zlbench_opts_%s=\"%s\"\n", c->name, per_command->v[i]);
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
		"}\n\n"
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

static void print_zsh(FILE *out, const struct strvec *per_command, const struct strvec *with_arg)
{
	const struct zl_command *c;
	size_t i;

	fprintf(out, "#compdef zlbench\n"
		"# zsh completion for zlbench %s (printed by `zlbench completion zsh`)\n"
		"# Save it as _zlbench in a directory of $fpath, or: source <(zlbench completion zsh)\n\n",
		ZL_VERSION_STRING);
	fprintf(out, "_zlbench_commands=(");
	command_names(out);
	fprintf(out, ")\n_zlbench_backends=(");
	backend_names(out);
	fprintf(out, ")\n_zlbench_global=(%s)\n_zlbench_valued=(", global_options);
	for (i = 0; i < with_arg->nr; i++)
		fprintf(out, "%s--%s", i ? " " : "", with_arg->v[i]);
	fprintf(out, ")\ntypeset -gA _zlbench_opts\n");
	for (c = zl_commands(), i = 0; c->name; c++, i++)
		fprintf(out, "_zlbench_opts[%s]=\"%s\"\n", c->name, per_command->v[i]);
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
		"}\n\n"
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

static const struct {
	const char *shell;
	void (*print)(FILE *out, const struct strvec *per_command, const struct strvec *with_arg);
} shells[] = {
	{ "bash", print_bash },
	{ "zsh", print_zsh },
};

/* Hidden: the operators of a checkout, one per line, for the scripts. */
static int list_ops(const char *dir)
{
	struct strvec ops = STRVEC_INIT;
	size_t i;

	zl_list_ops(dir && *dir ? dir : ".", &ops);
	for (i = 0; i < ops.nr; i++)
		printf("%s\n", ops.v[i]);
	strvec_clear(&ops);
	return ZL_EXIT_OK;
}

int cmd_completion(int argc, const char **argv)
{
	int want_ops = 0, code = ZL_EXIT_USAGE;
	const char *flaggems_dir = NULL;
	const struct zl_option opts[] = {
		{ .type = ZL_OPT_FLAG, .long_name = "list-ops", .value = &want_ops, .defval = 1, .flags = ZL_OPT_HIDDEN },
		{ .type = ZL_OPT_STRING, .long_name = "flaggems-dir", .value = &flaggems_dir, .argh = "DIR",
		  .env = "FLAGGEMS_DIR", .flags = ZL_OPT_HIDDEN },
		ZL_OPT_END_ROW,
	};
	const struct zl_option *tables[] = { opts, NULL };
	struct strvec args = STRVEC_INIT, per_command = STRVEC_INIT, with_arg = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t i;
	int rc = zl_parse_options(argc - 1, argv + 1, tables, &args, NULL, &err);

	if (rc == 1) {
		help_completion(stdout);
		code = ZL_EXIT_OK;
		goto out;
	}
	if (rc) {
		zl_print_error("%s", err.buf);
		goto out;
	}
	if (want_ops) {
		code = list_ops(flaggems_dir);
		goto out;
	}
	if (args.nr != 1) {
		zl_print_error("name one shell: zlbench completion bash, or zlbench completion zsh");
		goto out;
	}
	for (i = 0; i < ZL_ARRAY_SIZE(shells); i++) {
		if (strcmp(shells[i].shell, args.v[0]))
			continue;
		if (collect(&per_command, &with_arg)) {
			zl_print_error("cannot read the commands' help text: out of memory");
			code = ZL_EXIT_INTERNAL;
			goto out;
		}
		shells[i].print(stdout, &per_command, &with_arg);
		code = ZL_EXIT_OK;
		goto out;
	}
	zl_print_error("unknown shell '%s': choose bash or zsh", args.v[0]);
out:
	strvec_clear(&args);
	strvec_clear(&per_command);
	strvec_clear(&with_arg);
	strbuf_release(&err);
	return code;
}
