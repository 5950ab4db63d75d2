provider {
  probe a();
};
