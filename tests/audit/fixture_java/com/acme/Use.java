package com.acme;

public class Use {
    void direct() {
        Store s = new Store("p");
        s.save(1);
    }

    void collision() {
        Cache c = new Cache();
        c.save(2);
    }

    void untyped(Object o) {
        String msg = "save(3)";
        ((Store) o).save(3);
    }
}
