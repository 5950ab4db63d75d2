provider p {
  probe a();
