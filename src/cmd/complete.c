/*
 * The bash and zsh completion scripts (cmd.h: zl_completion_script), rendered from the rows:
 * the commands from main.c's table, each command's options from its option rows (and the run
 * settings' rows, and the global options, which every command takes), what each option's
 * value completes to from the row (its choices, else its kind: directories, backend names from
 * the backend table, operators), `help`'s operands from the commands and topics. Operator
 * names depend on the FlagGems checkout, so the scripts ask `zlbench completion --list-ops`
 * while completing.
 */
#include <stdio.h>
#include <string.h>

#include "zlbench/backend.h"
#include "zlbench/cmd.h"
#include "zlbench/error.h"
#include "zlbench/settings.h"
#include "zlbench/strbuf.h"
#include "zlbench/strvec.h"
#include "zlbench/zlbench.h"
#include "zlbench/banned.h"

/* What a word completes to: 'w' words, 'd' directories, 'b' backends, 'o' operators, 'l' operator lists, 'c' commands, 'f' files. */
struct action {
	char kind;
	const char *words;   /* kind 'w' */
};

/* The statement that completes each action, in each shell ($cur is the word; %s the action's words). */
static const struct {
	char kind;
	const char *bash, *zsh;
} statements[] = {
	{ 'w', "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", "compadd -- %s" },
	{ 'b', "COMPREPLY=($(compgen -W \"$_zlbench_backends\" -- \"$cur\"))", "compadd -- $_zlbench_backends" },
	{ 'c', "COMPREPLY=($(compgen -W \"$_zlbench_commands %s\" -- \"$cur\"))", "compadd -- $_zlbench_commands %s" },
	{ 'o', "COMPREPLY=($(compgen -W \"$(_zlbench_ops)\" -- \"$cur\"))", "compadd -- ${(f)\"$(_zlbench_ops)\"}" },
	/* the names before the last comma stay as typed */
	{ 'l', "local pre=\"\"; [[ $cur == *,* ]] && pre=\"${cur%%,*},\"; "
	  "COMPREPLY=($(compgen -P \"$pre\" -W \"$(_zlbench_ops)\" -- \"${cur##*,}\"))",
	  "compset -P '*,'; compadd -- ${(f)\"$(_zlbench_ops)\"}" },
	{ 'd', "COMPREPLY=($(compgen -d -- \"$cur\"))", "_files -/" },
	{ 'f', "COMPREPLY=($(compgen -f -- \"$cur\"))", "_files" },
};

static void values(FILE *out, int zsh, struct action a)
{
	size_t i;

	for (i = 0; i + 1 < ZL_ARRAY_SIZE(statements) && statements[i].kind != a.kind; i++)
		;
	fprintf(out, zsh ? statements[i].zsh : statements[i].bash, a.words ? a.words : "");
}

/* What the scripts say, gathered from the rows once. */
struct spec {
	struct strvec commands;  /* the listed commands */
	struct strvec opts;      /* per command (same order): its option words, space-separated */
	struct strvec valued;    /* every option word that takes a value, "--name" */
	struct strvec keys;      /* per option of a command whose value is no file name: its action, "<kind><words>" */
	struct strvec patterns;  /* (same order) "\"cmd --opt\"" */
};

static void spec_release(struct spec *sp)
{
	strvec_clear(&sp->commands);
	strvec_clear(&sp->opts);
	strvec_clear(&sp->valued);
	strvec_clear(&sp->keys);
	strvec_clear(&sp->patterns);
}

static struct action row_action(const struct zl_option *o)
{
	static const char kinds[] = {
		[ZL_VALUES_FILE] = 'f', [ZL_VALUES_DIR] = 'd', [ZL_VALUES_BACKEND] = 'b',
		[ZL_VALUES_OP] = 'o', [ZL_VALUES_OP_LIST] = 'l',
	};

	if (o->choices)
		return (struct action){ 'w', o->choices };
	return (struct action){ kinds[o->values], NULL };
}

/* "cmd --opt" with its action (files, the default, need none). */
static void add_pattern(struct spec *sp, const char *cmd, const struct zl_option *o)
{
	struct action a = row_action(o);

	if (a.kind == 'f')
		return;
	strvec_pushf(&sp->keys, "%c%s", a.kind, a.words ? a.words : "");
	strvec_pushf(&sp->patterns, "\"%s --%s\"", cmd, o->long_name);
}

/* The case labels of one shell: the patterns of each action joined with '|', then the action. */
static void cases(FILE *out, const struct spec *sp, const char *indent, int zsh)
{
	size_t i, j;

	for (i = 0; i < sp->keys.nr; i++) {
		if (strvec_find(&sp->keys, sp->keys.v[i]) != (long)i)
			continue; /* said with the first of its action */
		fprintf(out, "%s", indent);
		for (j = i; j < sp->keys.nr; j++)
			if (!strcmp(sp->keys.v[j], sp->keys.v[i]))
				fprintf(out, "%s%s", j == i ? "" : "|", sp->patterns.v[j]);
		fprintf(out, ") ");
		values(out, zsh, (struct action){ sp->keys.v[i][0], sp->keys.v[i] + 1 });
		fprintf(out, " ;;\n");
	}
}

/* A command's options from one table: every row a word parses, but hidden ones and the settings it refuses. */
static void add_options(struct spec *sp, const struct zl_command *c, const struct zl_option *o, struct strbuf *line)
{
	struct strbuf word = STRBUF_INIT;

	for (; o && o->type != ZL_OPT_END; o++) {
		if (o->type == ZL_OPT_GROUP || !o->long_name || (o->flags & (ZL_OPT_HIDDEN | ZL_OPT_DOC_ONLY)))
			continue;
		if (zl_settings_option_has(o, c->refused_settings))
			continue;
		strbuf_addf(line, "%s--%s", line->len ? " " : "", o->long_name);
		if (!zl_option_takes_value(o))
			continue;
		strbuf_reset(&word);
		strbuf_addf(&word, "--%s", o->long_name);
		if (strvec_find(&sp->valued, word.buf) < 0)
			strvec_push(&sp->valued, word.buf);
		add_pattern(sp, c->name, o);
	}
	strbuf_release(&word);
}

static void gather(struct spec *sp)
{
	const struct zl_command *const *c;
	struct zl_settings s;

	memset(sp, 0, sizeof(*sp));
	strvec_init(&sp->commands);
	strvec_init(&sp->opts);
	strvec_init(&sp->valued);
	strvec_init(&sp->keys);
	strvec_init(&sp->patterns);
	zl_settings_init(&s);
	for (c = zl_commands(); *c; c++) {
		struct strbuf line = STRBUF_INIT;

		if ((*c)->flags & ZL_CMD_HIDDEN)
			continue;
		strvec_push(&sp->commands, (*c)->name);
		add_options(sp, *c, (*c)->options, &line);
		if ((*c)->flags & ZL_CMD_SETTINGS)
			add_options(sp, *c, zl_settings_options(&s), &line);
		add_options(sp, *c, zl_global_option_rows(), &line);
		strbuf_addf(&line, "%s--help", line.len ? " " : "");
		strvec_push(&sp->opts, line.buf);
		strbuf_release(&line);
	}
	zl_settings_release(&s);
}

static void print_bash(FILE *out, const struct spec *sp);
static void print_zsh(FILE *out, const struct spec *sp);

static const struct {
	const char *shell;
	void (*print)(FILE *out, const struct spec *sp);
} shells[] = {
	{ "bash", print_bash },
	{ "zsh", print_zsh },
};

/* The case labels of the commands whose operands are no file names: help's and completion's. */
static void operand_cases(FILE *out, const struct spec *sp, const char *indent, int zsh)
{
	const struct zl_help_topic *t;
	struct strbuf words = STRBUF_INIT;
	size_t i;

	for (t = zl_help_topics(); t->name; t++)
		strbuf_addf(&words, "%s%s", words.len ? " " : "", t->name);
	if (strvec_find(&sp->commands, "help") >= 0) {
		fprintf(out, "%shelp) ", indent);
		values(out, zsh, (struct action){ 'c', words.buf });
		fprintf(out, " ;;\n");
	}
	strbuf_reset(&words);
	for (i = 0; i < ZL_ARRAY_SIZE(shells); i++)
		strbuf_addf(&words, "%s%s", i ? " " : "", shells[i].shell);
	fprintf(out, "%scompletion) ", indent);
	values(out, zsh, (struct action){ 'w', words.buf });
	fprintf(out, " ;;\n");
	strbuf_release(&words);
}

static void backend_names(FILE *out)
{
	struct strvec names = STRVEC_INIT;
	size_t i;

	zl_backend_names(&names);
	for (i = 0; i < names.nr; i++)
		fprintf(out, "%s%s", i ? " " : "", names.v[i]);
	strvec_clear(&names);
}

static void join(FILE *out, const struct strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		fprintf(out, "%s%s", i ? " " : "", sv->v[i]);
}

/* ---- bash ----------------------------------------------------------------------------- */

static void print_bash(FILE *out, const struct spec *sp)
{
	size_t i;

	fprintf(out, "# bash completion for zlbench %s (printed by `zlbench completion bash`)\n"
		"# Load it with: source <(zlbench completion bash)\n\n_zlbench_commands=\"", ZL_VERSION_STRING);
	join(out, &sp->commands);
	fprintf(out, "\"\n_zlbench_backends=\"");
	backend_names(out);
	fprintf(out, "\"\n_zlbench_global=\"");
	for (i = 0; zl_global_option_rows()[i].type != ZL_OPT_END; i++)
		fprintf(out, "--%s ", zl_global_option_rows()[i].long_name);
	fprintf(out, "--help\"\n# options that take a value\n_zlbench_valued=\" ");
	for (i = 0; i < sp->valued.nr; i++)
		fprintf(out, "%s ", sp->valued.v[i]);
	fprintf(out, "\"\n");
	for (i = 0; i < sp->commands.nr; i++)
		fprintf(out, "_zlbench_opts_%s=\"%s\"\n", sp->commands.v[i], sp->opts.v[i]);
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
		"\t\tcase \"$cmd $prev\" in\n");
	cases(out, sp, "\t\t", 0);
	fprintf(out, "\t\t*) ");
	values(out, 0, (struct action){ 'f', NULL });
	fprintf(out, " ;;\n\t\tesac\n\t\treturn 0\n\tfi\n"
		"\tif [[ $cur == -* ]]; then\n"
		"\t\topts=\"_zlbench_opts_${cmd}\"\n"
		"\t\tCOMPREPLY=($(compgen -W \"${!opts}\" -- \"$cur\"))\n"
		"\t\treturn 0\n"
		"\tfi\n"
		"\tcase \"$cmd\" in\n");
	operand_cases(out, sp, "\t", 0);
	fprintf(out, "\t*) ");
	values(out, 0, (struct action){ 'f', NULL });
	fprintf(out, " ;;\n\tesac\n\treturn 0\n}\n\ncomplete -F _zlbench zlbench\n");
}

/* ---- zsh ------------------------------------------------------------------------------ */

static void print_zsh(FILE *out, const struct spec *sp)
{
	size_t i;

	fprintf(out, "#compdef zlbench\n"
		"# zsh completion for zlbench %s (printed by `zlbench completion zsh`)\n"
		"# Save it as _zlbench in a directory of $fpath, or: source <(zlbench completion zsh)\n\n"
		"_zlbench_commands=(", ZL_VERSION_STRING);
	join(out, &sp->commands);
	fprintf(out, ")\n_zlbench_backends=(");
	backend_names(out);
	fprintf(out, ")\n_zlbench_global=(");
	for (i = 0; zl_global_option_rows()[i].type != ZL_OPT_END; i++)
		fprintf(out, "--%s ", zl_global_option_rows()[i].long_name);
	fprintf(out, "--help)\n_zlbench_valued=(");
	join(out, &sp->valued);
	fprintf(out, ")\ntypeset -gA _zlbench_opts\n");
	for (i = 0; i < sp->commands.nr; i++)
		fprintf(out, "_zlbench_opts[%s]=\"%s\"\n", sp->commands.v[i], sp->opts.v[i]);
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
		"    case \"$cmd $prev\" in\n");
	cases(out, sp, "    ", 1);
	fprintf(out, "    *) ");
	values(out, 1, (struct action){ 'f', NULL });
	fprintf(out, " ;;\n    esac\n    return\n  fi\n"
		"  if [[ $cur == -* ]]; then\n"
		"    compadd -- ${=_zlbench_opts[$cmd]}\n"
		"    return\n"
		"  fi\n"
		"  case $cmd in\n");
	operand_cases(out, sp, "  ", 1);
	fprintf(out, "  *) ");
	values(out, 1, (struct action){ 'f', NULL });
	fprintf(out, " ;;\n  esac\n}\n\n"
		"if [[ $funcstack[1] == _zlbench ]]; then\n"
		"  _zlbench \"$@\"\n"
		"else\n"
		"  compdef _zlbench zlbench\n"
		"fi\n");
}

int zl_completion_script(FILE *out, const char *shell, struct strbuf *err)
{
	struct spec sp;
	size_t i;

	for (i = 0; i < ZL_ARRAY_SIZE(shells); i++) {
		if (strcmp(shells[i].shell, shell))
			continue;
		gather(&sp);
		shells[i].print(out, &sp);
		spec_release(&sp);
		return 0;
	}
	zl_error(err, "unknown shell '%s': choose ", shell);
	for (i = 0; i < ZL_ARRAY_SIZE(shells); i++)
		strbuf_addf(err, "%s%s", i == 0 ? "" : i + 1 == ZL_ARRAY_SIZE(shells) ? " or " : ", ", shells[i].shell);
	return -1;
}
