/**
 * @file Common English function words: the English stop-word list of NLTK (Bird, Klein and Loper,
 * nltk_data corpora/stopwords/english), without its contraction fragments ("don", "wasn", ...). Only the reader's highlighting uses them (marking every
 * "the" would hide the words that matter); scoring keeps every term, as BM25's IDF already
 * discounts frequent ones.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out ' +
    'over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves s t d ll m re ve'
  ).split(' '),
);
