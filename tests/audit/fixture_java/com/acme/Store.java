package com.acme;

public class Store {
    public Store(String path) {
        this.path = path;
    }

    private String path;

    // save(0) in a comment
    public int save(int item) {
        return write(item);
    }

    private int write(int item) {
        return item;
    }
}
