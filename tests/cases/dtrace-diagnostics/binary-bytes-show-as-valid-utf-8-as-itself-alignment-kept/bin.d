provider p {
/*ÿÃ©*/ probe a() junk; };
