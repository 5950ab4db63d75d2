provider p {
  probe a$b();
};
