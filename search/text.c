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
    "a",     "about",  "after",	 "all",	  "also",  "am",       "an",	  "and",       "any",
    "are",   "as",     "at",	 "be",	  "been",  "but",      "by",	  "can",       "could",
    "do",    "does",   "doing",	 "done",  "each",  "else",     "etc",	  "every",     "for",
    "from",  "get",    "given",	 "got",	  "had",   "has",      "have",	  "he",	       "her",
    "here",  "him",    "his",	 "how",	  "i",	   "i'd",      "i'm",	  "if",	       "in",
    "into",  "is",     "it",	 "its",	  "just",  "let",      "lets",	  "like",      "me",
    "might", "mine",   "more",	 "most",  "much",  "must",     "my",	  "need",      "needs",
    "no",    "not",    "now",	 "of",	  "on",	   "once",     "one",	  "only",      "or",
    "other", "our",    "ours",	 "out",	  "over",  "please",   "put",	  "really",    "s",
    "same",  "she",    "should", "so",	  "some",  "somebody", "someone", "something", "such",
    "than",  "that",   "the",	 "their", "them",  "then",     "there",	  "these",     "they",
    "thing", "things", "this",	 "those", "to",	   "too",      "tool",	  "tools",     "up",
    "us",    "use",    "used",	 "uses",  "using", "very",     "via",	  "want",      "wanted",
    "was",   "way",    "we",	 "were",  "what",  "when",     "where",	  "whether",   "which",
    "while", "who",    "whose",	 "why",	  "will",  "with",     "within",  "without",   "would",
    "you",   "your",   "yours",
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

static int emit(const unsigned char *s, size_t n, bool stem, bool stop, search_term_fn fn,
		void *ctx)
{
	char w[SEARCH_TERM_MAX + 1];
	size_t i, len = n < SEARCH_TERM_MAX ? n : SEARCH_TERM_MAX;

	for (i = 0; i < len; i++)
		w[i] = is_upper(s[i]) ? (char)(s[i] - 'A' + 'a') : (char)s[i];
	w[len] = '\0';
	if (stop && search_stopword(w))
		return 0;
	if (stem)
		len = search_stem(w, len);
	return fn(ctx, w, len);
}

int search_terms(const char *text, size_t n, bool stem, bool stop, search_term_fn fn, void *ctx)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, start;
	int rc;

	while (i < n) {
		while (i < n && !word_byte(s[i]))
			i++;
		if (i == n)
			break;
		start = i++;
		while (i < n && word_byte(s[i]) && !camel_break(s, i, n))
			i++;
		rc = emit(s + start, i - start, stem, stop, fn, ctx);
		if (rc)
			return rc;
	}
	return 0;
}
