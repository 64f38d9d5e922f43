module Shop
  module Pricing
    class Tax
      RATE = 0.2

      def self.apply(amount)
        amount + amount * RATE
      end
    end
  end
end
