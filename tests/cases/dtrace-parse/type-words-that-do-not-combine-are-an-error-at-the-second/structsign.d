provider p {
    probe a(unsigned struct s *p);
};
