translator conninfo_t < conn_t *C > {
    ci_local = inet_ntoa(&C->local);
    ci_remote = (string) C->remote;
};
inline int MAX_CONN = 128;

provider http {
    probe conn__open(conn_t *c) : (conninfo_t *c);
    probe conn__close(conn_t *c, int why) : (conninfo_t *c, int why)
    probe bare()
};
BEGIN { trace(1); }
