package com.acme;

public class Cache {
    public int save(int item) {
        return item;
    }
}
