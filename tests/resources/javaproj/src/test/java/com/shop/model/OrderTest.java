package com.shop.model;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class OrderTest {
    @Test
    public void totalAddsLines() {
        Order order = new Order("o-1");
        order.add(new Order.Line(new Money(150, "EUR"), 2));
        assertEquals(new Money(300, "EUR"), order.total());
    }
}
