provider p { probe a(); };
