provider p {
	probe a(int x);
		probe b() junk;
};
