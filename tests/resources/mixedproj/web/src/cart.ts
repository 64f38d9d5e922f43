import { fetchItems, Item } from "./api";

export class CartView {
  private items: Item[] = [];

  async load(base: string): Promise<number> {
    this.items = await fetchItems(base);
    return this.total();
  }

  total(): number {
    return this.items.reduce((sum, item) => sum + item.price, 0);
  }
}
