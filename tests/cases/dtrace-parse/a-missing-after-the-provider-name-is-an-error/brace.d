provider p
  probe a();
