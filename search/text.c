/* Tokenising and light stemming. Hand-written rather than Snowball
 * (libstemmer): Debian's libstemmer-dev ships no pkg-config file, and a
 * light stemmer that only folds inflections keeps tool words apart that
 * Porter merges (e.g. "organization" and "organ"). */
#include <stdlib.h>
#include <string.h>

#include "text_i.h"

/* Sorted: looked up with bsearch. Words that carry no task in a request
 * ("please", "want") or that every tool description uses ("tool"). */
static const char *const stopwords[] = {
    "a",	  "able",    "about",	  "actually", "after",	    "again",	 "all",
    "already",	  "also",    "always",	  "am",	      "an",	    "and",	 "another",
    "any",	  "anyone",  "anything",  "are",      "aren",	    "as",	 "at",
    "be",	  "been",    "but",	  "by",	      "called",	    "can",	 "certain",
    "containing", "could",   "currently", "d",	      "didn",	    "do",	 "does",
    "doesn",	  "doing",   "don",	  "done",     "each",	    "else",	 "entire",
    "etc",	  "every",   "few",	  "for",      "from",	    "get",	 "give",
    "given",	  "go",	     "going",	  "got",      "had",	    "happen",	 "has",
    "have",	  "he",	     "her",	  "here",     "hey",	    "hi",	 "him",
    "his",	  "how",     "i",	  "if",	      "in",	    "into",	 "is",
    "isn",	  "it",	     "its",	  "just",     "kindly",	    "know",	 "let",
    "lets",	  "like",    "ll",	  "m",	      "maybe",	    "me",	 "mentioning",
    "might",	  "mine",    "more",	  "most",     "much",	    "must",	 "my",
    "named",	  "need",    "needs",	  "no",	      "not",	    "now",	 "of",
    "okay",	  "on",	     "once",	  "one",      "only",	    "or",	 "other",
    "our",	  "ours",    "out",	  "over",     "particular", "please",	 "possible",
    "put",	  "quick",   "quickly",	  "re",	      "really",	    "regarding", "right",
    "s",	  "same",    "several",	  "she",      "should",	    "so",	 "some",
    "somebody",	  "someone", "something", "specific", "such",	    "sure",	 "t",
    "tell",	  "than",    "thank",	  "thanks",   "that",	    "the",	 "their",
    "them",	  "then",    "there",	  "these",    "they",	    "thing",	 "things",
    "this",	  "those",   "titled",	  "to",	      "too",	    "tool",	 "tools",
    "try",	  "trying",  "up",	  "us",	      "use",	    "used",	 "uses",
    "using",	  "ve",	     "very",	  "via",      "want",	    "wanted",	 "was",
    "wasn",	  "way",     "we",	  "were",     "what",	    "when",	 "where",
    "whether",	  "which",   "while",	  "who",      "whole",	    "whose",	 "why",
    "will",	  "with",    "within",	  "without",  "won",	    "would",	 "you",
    "your",	  "yours",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool search_stopword(const char *w)
{
	return bsearch(&w, stopwords, sizeof(stopwords) / sizeof(stopwords[0]),
		       sizeof(stopwords[0]), cmp_str) != NULL;
}

static bool is_vowel(char c)
{
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

static bool ends(const char *w, size_t len, const char *suf, size_t *sl)
{
	*sl = strlen(suf);
	return len > *sl && !memcmp(w + len - *sl, suf, *sl);
}

/* "stopp" -> "stop", but "fill" and "pass" keep their double letters. */
static size_t undouble(char *w, size_t len)
{
	if (len > 3 && w[len - 1] == w[len - 2] && !is_vowel(w[len - 1]) &&
	    !strchr("lsz", w[len - 1]))
		w[--len] = '\0';
	return len;
}

size_t search_stem(char *w, size_t len)
{
	size_t sl;

	if (len <= 3)
		return len;
	if (ends(w, len, "ies", &sl) && len > 4) {
		len -= 3;
		w[len++] = 'y';
	} else if (ends(w, len, "sses", &sl) || ends(w, len, "xes", &sl) ||
		   ends(w, len, "ches", &sl) || ends(w, len, "shes", &sl)) {
		len -= 2;
	} else if (w[len - 1] == 's' && !strchr("sui", w[len - 2])) {
		len--;
	}
	w[len] = '\0';
	if (ends(w, len, "ing", &sl) && len > 5) {
		len = undouble(w, len - 3);
	} else if (ends(w, len, "ied", &sl) && len > 4) {
		len -= 3;
		w[len++] = 'y';
	} else if (ends(w, len, "ed", &sl) && len > 4 && w[len - 3] != 'e') {
		len = undouble(w, len - 2);
	} else if (ends(w, len, "ation", &sl) && len > 7) {
		len -= 5;
		w[len++] = 'a';
		w[len++] = 't';
	} else if (ends(w, len, "tion", &sl) && len > 6) {
		len -= 3;
	}
	w[len] = '\0';
	/* "create", "creat(ing)", "creat(ed)" meet at "creat". */
	if (len > 4 && w[len - 1] == 'e')
		w[--len] = '\0';
	if (len > 4 && w[len - 1] == 'y' && !is_vowel(w[len - 2]))
		w[len - 1] = 'i';
	return len;
}

static bool is_lower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool word_byte(unsigned char c)
{
	return is_lower(c) || is_upper(c) || is_digit(c) || c >= 0x80;
}

/* Whether a camelCase word ends before @s[i]. */
static bool camel_break(const unsigned char *s, size_t i, size_t n)
{
	if (!is_upper(s[i]))
		return false;
	if (is_lower(s[i - 1]) || is_digit(s[i - 1]))
		return true;
	/* "HTMLParser": the P starts a word. */
	return is_upper(s[i - 1]) && i + 1 < n && is_lower(s[i + 1]);
}

/* Words after which the rest of a request names what to work on (a topic,
 * a name) rather than what to do: "notes about the Berlin office". */
static const char *const arg_markers[] = {
    "about", "called", "containing", "mentioning", "named", "regarding", "titled",
};

static bool arg_marker(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(arg_markers) / sizeof(arg_markers[0]); i++)
		if (!strcmp(w, arg_markers[i]))
			return true;
	return false;
}

/* Two-word verbs that name one act, joined before stopwords go ("in", "up"
 * and "off" are stopwords, and "log" alone is a log). Sorted by the pair. */
static const struct {
	const char *a, *b, *as;
} phrasal[] = {
    {"add", "up", "sum"},
    {"back", "up", "backup"},
    {"clean", "up", "cleanup"},
    {"how", "big", "size"},
    {"how", "far", "distance"},
    {"how", "high", "height"},
    {"how", "large", "size"},
    {"how", "long", "duration"},
    {"how", "many", "count"},
    {"kick", "off", "start"},
    {"log", "in", "login"},
    {"log", "out", "logout"},
    {"logged", "in", "login"},
    {"logged", "out", "logout"},
    {"logging", "in", "login"},
    {"look", "up", "lookup"},
    {"merge", "request", "mergerequest"},
    {"merge", "requests", "mergerequest"},
    {"pull", "request", "pullrequest"},
    {"pull", "requests", "pullrequest"},
    {"roll", "back", "rollback"},
    {"rolled", "back", "rollback"},
    {"set", "up", "setup"},
    {"shut", "down", "shutdown"},
    {"sign", "in", "login"},
    {"sign", "out", "logout"},
    {"sign", "up", "signup"},
    {"signed", "in", "login"},
    {"switch", "off", "disable"},
    {"switch", "on", "enable"},
    {"turn", "off", "disable"},
    {"turn", "on", "enable"},
    {"who", "am", "whoami"},
    {"work", "item", "workitem"},
    {"work", "items", "workitem"},
};

/* The joined word for @a (lowercase) and the word @b (@n bytes, any case),
 * or NULL. */
static const char *phrasal_join(const char *a, const unsigned char *b, size_t n)
{
	size_t lo = 0, hi = sizeof(phrasal) / sizeof(phrasal[0]), i, j;

	/* The first entry for @a, then its pairs. */
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (strcmp(phrasal[i].a, a) < 0)
			lo = i + 1;
		else
			hi = i;
	}
	for (i = lo; i < sizeof(phrasal) / sizeof(phrasal[0]) && !strcmp(phrasal[i].a, a); i++) {
		if (strlen(phrasal[i].b) != n)
			continue;
		for (j = 0; j < n && (b[j] | 0x20) == phrasal[i].b[j]; j++)
			;
		if (j == n)
			return phrasal[i].as;
	}
	return NULL;
}

struct walk {
	unsigned how; /* enum search_text */
	search_term_fn fn;
	void *ctx;
	unsigned nwords; /* words seen, stopwords too */
	bool arg;	 /* past an argument marker */
	int rc;		 /* the callback's last value */
};

/* Emit the word @s (@n bytes); @next (@nn bytes, 0 at the end) is the word
 * after it. Returns 1 when the two were joined (skip @next), 0, or -1 with
 * the callback's value in wk->rc. */
static int emit(struct walk *wk, const unsigned char *s, size_t n, const unsigned char *next,
		size_t nn)
{
	char w[SEARCH_TERM_MAX + 1];
	const char *joined;
	int joins = 0;
	size_t i, len = n < SEARCH_TERM_MAX ? n : SEARCH_TERM_MAX;
	unsigned flags = wk->arg ? SEARCH_TERM_ARG : 0;

	for (i = 0; i < len; i++)
		w[i] = is_upper(s[i]) ? (char)(s[i] - 'A' + 'a') : (char)s[i];
	/* "4242", "7am"; not "ec2" or "base64", which name things. */
	if (is_digit(s[0]))
		flags |= SEARCH_TERM_DIGIT;
	w[len] = '\0';
	if (nn && (wk->how & SEARCH_TEXT_PHRASES) && (joined = phrasal_join(w, next, nn))) {
		len = strlen(joined);
		memcpy(w, joined, len + 1);
		joins = 1;
	}
	/* "Alice" mid-sentence, not "Who" first or "HTML" (an acronym). */
	if (wk->nwords++ && is_upper(s[0]) && len > 1 && is_lower(s[1]))
		flags |= SEARCH_TERM_CAP;
	if ((wk->how & SEARCH_TEXT_STOP) && search_stopword(w)) {
		/* Every marker is a stopword: look only among them. */
		wk->arg = wk->arg || arg_marker(w);
		return joins;
	}
	if (wk->how & SEARCH_TEXT_STEM)
		len = search_stem(w, len);
	wk->rc = wk->fn(wk->ctx, w, len, flags);
	return wk->rc ? -1 : joins;
}

/* The word at @s[*i] (skipping what is no word): its start, its length in
 * @n, *i past it; false at the end. */
static bool next_word(const unsigned char *s, size_t len, size_t *i, size_t *start, size_t *n)
{
	while (*i < len && !word_byte(s[*i]))
		(*i)++;
	if (*i == len)
		return false;
	*start = (*i)++;
	while (*i < len && word_byte(s[*i]) && !camel_break(s, *i, len))
		(*i)++;
	*n = *i - *start;
	return true;
}

int search_terms(const char *text, size_t n, unsigned how, search_term_fn fn, void *ctx)
{
	const unsigned char *s = (const unsigned char *)text;
	struct walk wk = {.how = how, .fn = fn, .ctx = ctx};
	size_t i = 0, start, len, j, nstart = 0, nlen = 0;
	bool more = next_word(s, n, &i, &start, &len), has_next;
	int rc;

	while (more) {
		j = i;
		has_next = next_word(s, n, &j, &nstart, &nlen);
		rc = emit(&wk, s + start, len, s + nstart, has_next ? nlen : 0);
		if (rc < 0)
			return wk.rc;
		if (rc && has_next) /* joined: the next word is spent */
			more = next_word(s, n, &j, &nstart, &nlen);
		else
			more = has_next;
		i = j;
		start = nstart;
		len = nlen;
	}
	return 0;
}
