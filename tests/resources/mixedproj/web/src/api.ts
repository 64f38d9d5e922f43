export interface Item {
  id: string;
  price: number;
}

export async function fetchItems(base: string): Promise<Item[]> {
  const response = await fetch(`${base}/items`);
  return response.json();
}
