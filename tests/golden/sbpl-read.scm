;; SPDX-License-Identifier: MIT
;; The independent reader of confine's Seatbelt profiles (SPEC 9, R26): GNU Guile's own
;; (read), applied until end of file, to each profile named on the command line.  SBPL writes
;; regexes as #"..." literals that keep their backslashes; that one reader extension is added
;; here, nothing else.  For each file it prints
;;   FILE <path>
;;   S <string>     for every string literal, in order
;;   R <regex>      for every regex literal, in order
;;   END <n>        the number of top-level forms
;; and exits non-zero (Guile's reader error) on anything that is not well formed.
(read-hash-extend #\"
  (lambda (chr port)
    (let loop ((acc '()))
      (let ((c (read-char port)))
        (cond ((eof-object? c) (error "unterminated regex literal"))
              ((char=? c #\") (list 'regex-literal (list->string (reverse acc))))
              (else (loop (cons c acc))))))))

(define (walk x)
  (cond ((string? x) (display "S ") (display x) (newline))
        ((and (pair? x) (eq? (car x) 'regex-literal))
         (display "R ") (display (cadr x)) (newline))
        ((pair? x) (walk (car x)) (walk (cdr x)))
        (else #t)))

(define (read-profile file)
  (let ((port (open-input-file file)))
    (set-port-encoding! port "UTF-8")
    (display "FILE ") (display file) (newline)
    (let loop ((n 0))
      (let ((x (read port)))
        (if (eof-object? x)
            (begin (display "END ") (display n) (newline))
            (begin
              (if (not (and (pair? x) (memq (car x) '(version allow deny))))
                  (error "a top-level form that is not (version ...), (allow ...) or (deny ...)"))
              (walk x)
              (loop (+ n 1))))))
    (close-port port)))

(set-port-encoding! (current-output-port) "UTF-8")
(for-each read-profile (cdr (command-line)))
