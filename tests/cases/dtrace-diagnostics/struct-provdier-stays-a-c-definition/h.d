struct provdier { int x; };
provider p { probe a(); };
