/* The synonym groups, stemmed once into a table sorted by term (to look a
 * word up) and one in group order (to list a group's words). */
#include <stdlib.h>
#include <string.h>

#include "synonyms_i.h"
#include "text_i.h"

/* One group a line, words separated by spaces. Acts: what a tool does. */
static const char *const act_groups[] = {
    "find search lookup query locate seek discover grep",
    "fetch retrieve obtain read load view show display see",
    "list enumerate show display browse",
    "create add new make insert generate produce",
    "delete remove erase destroy purge trash drop discard wipe forget",
    "update edit modify change alter patch adjust revise",
    "set configure assign",
    "write save store persist record",
    "rename move relocate",
    "copy duplicate clone fork replicate",
    "send post message notify deliver",
    "reply respond answer",
    "share publish",
    "run execute launch start invoke trigger kick queue",
    "stop kill terminate cancel halt abort quit end interrupt",
    "pause suspend freeze stop",
    "resume restore unpause reactivate recover",
    "undo revert rollback restore",
    "open access",
    "close disconnect",
    "connect attach",
    "login signin authenticate auth whoami",
    "download export pull save dump",
    "upload import push attach",
    "compare diff difference",
    "merge combine",
    "deploy release publish ship rollout",
    "install setup",
    "uninstall remove",
    "upgrade update",
    "schedule plan",
    "toggle enable disable switch activate deactivate",
    "check verify validate test inspect audit",
    "analyze analyse analysis examine evaluate assess",
    "describe explain detail info information",
    "summary summarize overview digest",
    "count number total tally",
    "monitor watch track observe",
    "follow subscribe watch",
    "approve accept",
    "reject decline deny",
    "complete finish resolve close",
    "scale resize",
    "convert transform format",
    "parse extract",
    "scrape crawl extract",
    "compress zip gzip archive",
    "sort order rank",
    "tag label category",
    "invite add",
    "remember memorize recall memory note",
    "think reason thought reflect",
    "research investigate study",
    "ask question query",
    "repeat echo",
    "wait sleep delay",
    "print output",
    "fail failure break crash",
    "refresh reload sync synchronize",
    "reset clear",
    "lock protect",
    "block ban",
    "mute silence",
    "click press tap",
    "type fill input enter",
    "navigate visit browse",
    "screenshot capture snapshot",
    "estimate predict forecast",
    "backup snapshot dump export",
    "migrate migration",
    "aggregate aggregation",
    "many multiple batch bulk",
    /* Acts without a synonym here, named so the floor knows them. */
    "apply",
    "book",
    "buy",
    "sell",
    "take",
    "bring",
    "call",
    "keep",
    "hold",
    "work",
    "help",
    "transfer",
    "register",
    "renew",
    "come",
    "allow",
};

/* Things, after the acts: a group's index past the acts says it is one. */
static const char *const thing_groups[] = {
    "issue ticket bug defect incident problem",
    "workitem issue ticket story epic",
    "task job todo",
    "repository repo codebase",
    "project workspace",
    "message chat dm",
    "channel room conversation",
    "thread reply",
    "reaction emoji react",
    "file document doc",
    "folder directory dir",
    "path location",
    "content contents body text",
    "metadata info properties",
    "tree hierarchy",
    "image picture photo screenshot icon",
    "user person people member account profile identity colleague teammate owner",
    "team group",
    "company organization org business",
    "contact customer lead client prospect",
    "deal opportunity sale",
    "web internet online website webpage site url page",
    "link url",
    "news article headline",
    "email mail inbox",
    "draft compose",
    "attachment attach",
    "database db datastore",
    "table collection",
    "record row entry document item object",
    "column field property attribute",
    "query sql select",
    "index indexes",
    "log history event activity",
    "error failure exception fault",
    "trace traceback backtrace stacktrace",
    "meeting event appointment",
    "calendar schedule agenda",
    "reminder remind",
    "deadline due",
    "place location address position coordinate geocode venue shop",
    "coordinate latitude longitude",
    "direction route navigate drive driving travel commute",
    "distance far",
    "elevation altitude height",
    "duration time long",
    "pipeline workflow build",
    "workflow automation flow",
    "secret credential token password key",
    "permission access role privilege scope",
    "configuration config settings option preference",
    "environment env",
    "variable var",
    "program process app application",
    "output stdout result",
    "terminal shell console session command",
    "container pod docker",
    "cluster kubernetes k8s",
    "server host machine instance vm",
    "function lambda serverless",
    "bucket storage",
    "volume disk",
    "commit revision changeset",
    "version release tag",
    "pullrequest mergerequest pr mr",
    "review approve",
    "comment reply note remark",
    "price cost fee amount",
    "payment charge pay transaction",
    "invoice bill billing receipt",
    "refund reimburse",
    "subscription plan membership",
    "product item sku",
    "size length bytes storage space disk",
    "schema structure model definition",
    "type kind",
    "relation relationship link connection association",
    "entity node",
    "observation fact note",
    "paper article publication academic scholarly",
    "documentation docs manual reference guide",
    "library package module dependency",
    "spreadsheet sheet workbook",
    "slide presentation deck",
    "browser chrome",
    "dashboard chart visualization",
    "metric measurement statistic stats usage analytics",
    "small tiny little mini",
    "large big huge",
    "fake simulated simulate mock dummy sample demo example",
    "recent latest last newest current",
    "old outdated stale previous",
    "slow performance latency speed",
    "status state health progress",
    "active running live",
    "priority urgent",
    "notification alert warning",
    "feedback rating review",
    "sprint iteration",
    "restaurant food cafe bar",
    "stay lodging accommodation rental listing home apartment hotel",
    "nearby near around",
    "text string",
    "key value",
    "code source",
    "number numeric",
};

#define NACTS (sizeof(act_groups) / sizeof(act_groups[0]))
#define NGROUPS (NACTS + sizeof(thing_groups) / sizeof(thing_groups[0]))

struct entry {
	char term[SEARCH_TERM_MAX + 1];
	unsigned group; /* below NACTS: an act */
};

struct search_synonyms {
	struct entry *byterm;	   /* sorted by (term, group), to look up */
	struct entry *bygroup;	   /* in group order, to list a group */
	size_t start[NGROUPS + 1]; /* group g is bygroup[start[g] .. start[g + 1]) */
	size_t n, cap;
};

struct add_ctx {
	struct search_synonyms *s;
	int oom;
};

static int add_term(void *ctx, const char *term, size_t len, unsigned flags)
{
	struct add_ctx *a = ctx;
	struct search_synonyms *s = a->s;
	struct entry *e;

	(void)flags;
	if (s->n == s->cap) {
		e = realloc(s->bygroup, (s->cap ? s->cap * 2 : 256) * sizeof(*e));
		if (!e)
			return a->oom = -1;
		s->bygroup = e;
		s->cap = s->cap ? s->cap * 2 : 256;
	}
	memcpy(s->bygroup[s->n].term, term, len + 1);
	s->bygroup[s->n].group = 0; /* set by the caller */
	s->n++;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->term, y->term);

	return c ? c : (x->group > y->group) - (x->group < y->group);
}

struct search_synonyms *search_synonyms_new(void)
{
	struct search_synonyms *s = calloc(1, sizeof(*s));
	struct add_ctx a = {s, 0};
	size_t g, i;

	if (!s)
		return NULL;
	for (g = 0; g < NGROUPS && !a.oom; g++) {
		const char *w = g < NACTS ? act_groups[g] : thing_groups[g - NACTS];

		s->start[g] = s->n;
		search_terms(w, strlen(w), SEARCH_TEXT_STEM, add_term, &a);
		for (i = s->start[g]; i < s->n; i++)
			s->bygroup[i].group = (unsigned)g;
	}
	s->start[NGROUPS] = s->n;
	s->byterm = a.oom ? NULL : malloc((s->n ? s->n : 1) * sizeof(*s->byterm));
	if (!s->byterm) {
		search_synonyms_free(s);
		return NULL;
	}
	memcpy(s->byterm, s->bygroup, s->n * sizeof(*s->byterm));
	qsort(s->byterm, s->n, sizeof(*s->byterm), cmp_entry);
	return s;
}

void search_synonyms_free(struct search_synonyms *s)
{
	if (!s)
		return;
	free(s->byterm);
	free(s->bygroup);
	free(s);
}

/* Index of the first entry for @term in byterm, or s->n. */
static size_t lower_bound(const struct search_synonyms *s, const char *term)
{
	size_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(s->byterm[mid].term, term) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void search_synonyms_each(const struct search_synonyms *s, const char *term,
			  void (*fn)(void *ctx, const char *syn), void *ctx)
{
	size_t i, j;
	unsigned g;

	for (i = lower_bound(s, term); i < s->n && !strcmp(s->byterm[i].term, term); i++) {
		g = s->byterm[i].group;
		for (j = s->start[g]; j < s->start[g + 1]; j++)
			if (strcmp(s->bygroup[j].term, term))
				fn(ctx, s->bygroup[j].term);
	}
}

bool search_synonyms_act(const struct search_synonyms *s, const char *term)
{
	size_t i = lower_bound(s, term);

	/* Entries of one term are in group order: acts first. */
	return i < s->n && !strcmp(s->byterm[i].term, term) && s->byterm[i].group < NACTS;
}
