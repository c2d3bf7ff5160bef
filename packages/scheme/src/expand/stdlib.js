// @ts-check
/**
 * The standard libraries: for each, the names it exports (R7RS-small Appendix A), split
 * into `syntax` (special forms and auxiliary keywords the expander implements, see
 * special-forms.js) and `procedures` (runtime procedures of namespace 'rt' under the
 * same name). Pure data; every syntax name must be one special-forms.js knows (a test
 * checks). A host package adds libraries, or names to one, through extension.js.
 *
 * (scheme r5rs) also exports `syntax-rules`, `else`, `=>`, `...` and `_`, without which
 * its own `define-syntax` and `cond` could not be used (as Chibi does).
 *
 * (termite) is declared here with what the language itself defines beyond R7RS
 * (sorting, `record?`, `error-object-who`), so a program run by this package alone can
 * use them; the Termite API — its special forms and the procedures of processes, nodes
 * and Linda — is added by the process runtime (packages/runtime/src/syntax/), which
 * implements it.
 *
 * Programs without an `import` form get `DEFAULT_IMPORTS`: every library here (and a
 * host library defined with defaultImport).
 */

/** @typedef {{syntax: string[], procedures: string[]}} LibraryExports */

/** @param {string} s */
const words = (s) => s.trim().split(/\s+/);

const BASE_SYNTAX = words(`
  ... => _ and begin case cond cond-expand define define-record-type define-syntax
  define-values do else guard if import include include-ci lambda let let* let*-values
  let-syntax let-values letrec letrec* letrec-syntax or parameterize quasiquote quote
  set! syntax-error syntax-rules unless unquote unquote-splicing when`);

const BASE_PROCEDURES = words(`
  * + - / < <= = > >= abs append apply assoc assq assv binary-port? boolean=? boolean?
  bytevector bytevector-append bytevector-copy bytevector-copy! bytevector-length
  bytevector-u8-ref bytevector-u8-set! bytevector? caar cadr call-with-current-continuation
  call-with-port call-with-values call/cc car cdar cddr cdr ceiling char->integer
  char-ready? char<=? char<? char=? char>=? char>? char? close-input-port
  close-output-port close-port complex? cons current-error-port current-input-port
  current-output-port denominator dynamic-wind eof-object eof-object? eq? equal? eqv?
  error error-object-irritants error-object-message error-object? even? exact
  exact-integer-sqrt exact-integer? exact? expt features file-error? floor floor-quotient
  floor-remainder floor/ flush-output-port for-each gcd get-output-bytevector
  get-output-string inexact inexact? input-port-open? input-port? integer->char integer?
  lcm length list list->string list->vector list-copy list-ref list-set! list-tail list?
  make-bytevector make-list make-parameter make-string make-vector map max member memq
  memv min modulo negative? newline not null? number->string number? numerator odd?
  open-input-bytevector open-input-string open-output-bytevector open-output-string
  output-port-open? output-port? pair? peek-char peek-u8 port? positive? procedure?
  quotient raise raise-continuable rational? rationalize read-bytevector read-bytevector!
  read-char read-error? read-line read-string read-u8 real? remainder reverse round
  set-car! set-cdr! square string string->list string->number string->symbol string->utf8
  string->vector string-append string-copy string-copy! string-fill! string-for-each
  string-length string-map string-ref string-set! string<=? string<? string=? string>=?
  string>? string? substring symbol->string symbol=? symbol? textual-port? truncate
  truncate-quotient truncate-remainder truncate/ u8-ready? utf8->string values vector
  vector->list vector->string vector-append vector-copy vector-copy! vector-fill!
  vector-for-each vector-length vector-map vector-ref vector-set! vector?
  with-exception-handler write-bytevector write-char write-string write-u8 zero?`);

/** @type {Record<string, LibraryExports>} library key → exports */
export const STANDARD_LIBRARIES = {
  '(scheme base)': { syntax: BASE_SYNTAX, procedures: BASE_PROCEDURES },
  '(scheme case-lambda)': { syntax: ['case-lambda'], procedures: [] },
  '(scheme char)': {
    syntax: [],
    procedures: words(`
      char-alphabetic? char-ci<=? char-ci<? char-ci=? char-ci>=? char-ci>? char-downcase
      char-foldcase char-lower-case? char-numeric? char-upcase char-upper-case?
      char-whitespace? digit-value string-ci<=? string-ci<? string-ci=? string-ci>=?
      string-ci>? string-downcase string-foldcase string-upcase`),
  },
  '(scheme complex)': { syntax: [], procedures: words('angle imag-part magnitude make-polar make-rectangular real-part') },
  '(scheme cxr)': {
    syntax: [],
    procedures: words(`
      caaar caadr cadar caddr cdaar cdadr cddar cdddr caaaar caaadr caadar caaddr cadaar
      cadadr caddar cadddr cdaaar cdaadr cdadar cdaddr cddaar cddadr cdddar cddddr`),
  },
  '(scheme eval)': { syntax: [], procedures: ['environment', 'eval'] },
  '(scheme file)': {
    syntax: [],
    procedures: words(`
      call-with-input-file call-with-output-file delete-file file-exists?
      open-binary-input-file open-binary-output-file open-input-file open-output-file
      with-input-from-file with-output-to-file`),
  },
  '(scheme inexact)': { syntax: [], procedures: words('acos asin atan cos exp finite? infinite? log nan? sin sqrt tan') },
  '(scheme lazy)': { syntax: ['delay', 'delay-force'], procedures: ['force', 'make-promise', 'promise?'] },
  '(scheme load)': { syntax: [], procedures: ['load'] },
  '(scheme process-context)': {
    syntax: [],
    procedures: words('command-line emergency-exit exit get-environment-variable get-environment-variables'),
  },
  '(scheme read)': { syntax: [], procedures: ['read'] },
  '(scheme repl)': { syntax: [], procedures: ['interaction-environment'] },
  '(scheme time)': { syntax: [], procedures: ['current-jiffy', 'current-second', 'jiffies-per-second'] },
  '(scheme write)': { syntax: [], procedures: ['display', 'write', 'write-shared', 'write-simple'] },
  '(scheme r5rs)': {
    syntax: words(`
      ... => _ and begin case cond define define-syntax delay do else if lambda let let*
      let-syntax letrec letrec-syntax or quasiquote quote set! syntax-rules`),
    procedures: words(`
      * + - / < <= = > >= abs acos angle append apply asin assoc assq assv atan boolean?
      caaaar caaadr caaar caadar caaddr caadr caar cadaar cadadr cadar caddar cadddr caddr
      cadr call-with-current-continuation call-with-input-file call-with-output-file
      call-with-values car cdaaar cdaadr cdaar cdadar cdaddr cdadr cdar cddaar cddadr cddar
      cdddar cddddr cdddr cddr cdr ceiling char->integer char-alphabetic? char-ci<=?
      char-ci<? char-ci=? char-ci>=? char-ci>? char-downcase char-lower-case? char-numeric?
      char-ready? char-upcase char-upper-case? char-whitespace? char<=? char<? char=?
      char>=? char>? char? close-input-port close-output-port complex? cons cos
      current-input-port current-output-port denominator display dynamic-wind eof-object?
      eq? equal? eqv? eval even? exact->inexact exact? exp expt floor for-each force gcd
      imag-part inexact->exact inexact? input-port? integer->char integer?
      interaction-environment lcm length list list->string list->vector list-ref list-tail
      list? load log magnitude make-polar make-rectangular make-string make-vector map max
      member memq memv min modulo negative? newline not null-environment null?
      number->string number? numerator odd? open-input-file open-output-file output-port?
      pair? peek-char positive? procedure? quotient rational? rationalize read read-char
      real-part real? remainder reverse round scheme-report-environment set-car! set-cdr!
      sin sqrt string string->list string->number string->symbol string-append
      string-ci<=? string-ci<? string-ci=? string-ci>=? string-ci>? string-copy
      string-fill! string-length string-ref string-set! string<=? string<? string=?
      string>=? string>? string? substring symbol->string symbol? tan truncate values
      vector vector->list vector-fill! vector-length vector-ref vector-set! vector?
      with-input-from-file with-output-to-file write write-char zero?`),
  },
  // sorting (SRFI 132 argument order), records, the `who` of an error: defined by the prelude and primitives
  '(termite)': { syntax: [], procedures: ['list-sort', 'vector-sort', 'sort', 'record?', 'error-object-who'] },
};

/** What a program without an `import` form imports: every standard library and (termite). */
export const DEFAULT_IMPORTS = Object.keys(STANDARD_LIBRARIES);

/**
 * The cond-expand features every unit sees (opts.features adds more; primitives/prims-system.js
 * adds the host's). `termite` is the implementation's name (R7RS Appendix B lists it
 * among the features): the language is Termite Scheme whether or not processes run it.
 */
export const BASE_FEATURES = ['r7rs', 'exact-closed', 'exact-complex', 'ratios', 'full-unicode', 'ieee-float', 'termite'];
