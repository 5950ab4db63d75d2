provider p {
  probe a(); /* never
  closed
