#include <stdio.h>
#include "geometry.h"

enum unit { UNIT_MM, UNIT_INCH };

static int square(int v) {
    return v * v;
}

/* Squared distance between two points. */
int distance2(const point_t *a, const point_t *b) {
    return square(a->x - b->x) + square(a->y - b->y);
}

static char *unit_name(enum unit u) {
    return u == UNIT_MM ? "mm" : "in";
}

int main(void) {
    point_t a = {0, 0}, b = {3, 4};
    printf("%d %s\n", distance2(&a, &b), unit_name(UNIT_MM));
    return 0;
}
