int x;
}
provider p { probe a(); };
