package com.shop.app;

import static com.shop.util.Text.slug;

import com.shop.model.*;

public class Main {
    public static void main(String[] args) {
        Order order = new Order("o-1");
        order.add(new Order.Line(Money.zero(), 2));
        order.save();
        System.out.println(slug(order.reference()));
        audit(order);
        Status status = Status.OPEN;
    }

    private static void audit(Order order) {
        unknownHelper(order);
    }
}
